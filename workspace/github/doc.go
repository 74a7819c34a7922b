// Package github reads a GitHub repository at one ref, read-only, through
// GitHub's REST API: the git trees and blobs APIs for listing and reading,
// and code search. [Backend] serves it as a workspace.Backend
// (`[workspace] backend = "github"`); [Client] is the API underneath.
//
// # Cost
//
// A listing costs what GitHub makes it cost and no more:
//
//   - the ref is resolved once (the repository for its default branch,
//     the ref's commit, the commit's tree and time), with conditional
//     requests (ETag) whose answers are kept on disk under the user's
//     cache directory (quiver/github), so that a second process gets 304
//     Not Modified, which GitHub does not count against the rate limit; it
//     is checked again, conditionally, when older than [Config.RefreshAfter];
//   - the whole tree comes in one recursive request; when GitHub truncates
//     it (over 100,000 entries or 7 MB), each directory is listed, each
//     subdirectory recursively again, within [Config.MaxTreeRequests];
//   - trees and blobs are cached by sha for the life of the process (blobs
//     up to [Config.BlobCacheBytes], least recently used out first), and
//     two calls for one sha at once make one request;
//   - a blob over 1 MB is read with the raw media type
//     (application/vnd.github.raw), not as base64 in JSON;
//   - one search (grep_search, search_code) fetches at most
//     [Config.SearchFetches] blobs and [Config.SearchBytes] bytes: the
//     bound travels in the search's context as a workspace.Budget, and the
//     search says when it was cut.
//
// # Limits
//
// X-RateLimit-* and Retry-After are obeyed: a primary limit that resets
// within [Config.MaxWait], a secondary limit's Retry-After within it, and a
// 5xx are retried, a bounded number of times with backoff; a later reset is
// the error RATE_LIMITED with reset_at, and until then no request is sent
// for that resource. Nothing waits past MaxWait or the call's context.
//
// # Errors
//
// Every error is a *tool.Error: NO_CONNECTION with specification 004's
// message "No active GitHub connection found" for no token, a token
// GitHub refuses (401) or a repository the token cannot read (403, or 404
// on the repository itself, which is how GitHub hides a private one);
// NOT_FOUND for a ref, path or object that is not there; RATE_LIMITED;
// TREE_TRUNCATED. The token is never logged nor written to disk.
//
// # Why google/go-github
//
// The client is github.com/google/go-github (v75, the newest that
// resolves here), chosen on its merits over a hand-written one over
// net/http: it is maintained by Google and GitHub's community and tracks
// the API's shapes (Tree with Truncated, Blob, CodeSearchResult with text
// matches, Repository.DefaultBranch), parses the Link header into
// Response.NextPage, tells a primary rate limit (*RateLimitError, with the
// reset) from a secondary one (*AbuseRateLimitError, with Retry-After),
// takes a GitHub Enterprise base URL, and has GetBlobRaw for the raw media
// type. Its one dependency is go-querystring. What it lacks is done here:
// conditional requests (its NewRequest takes our If-None-Match, and a 304
// comes back as an *ErrorResponse we recognise), a 429 it does not type,
// and waiting: its own rate-limit check is off (Client.DisableRateLimitCheck)
// because it reads the wall clock, where this package's bound and clock
// are its own and testable ([Config.Now], [Config.Sleep]).
package github
