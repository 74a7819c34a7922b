// Package githubtest is a loopback fake of GitHub's REST API, for tests of
// code that reads repositories through it: no test reaches the network.
//
// It serves repositories built from in-memory file sets ([Repo], [Files])
// or from a real local git repository ([FromGit]), with the object ids git
// gives them, over the operations a read-only client needs: get a
// repository (its default_branch), a branch, a ref, a commit (also as a
// bare sha), a tree (recursive, truncated past a limit as GitHub's are), a
// blob (base64, or raw with the application/vnd.github.raw media types),
// repository contents, and code search; each route names its operationId.
//
// # Shapes from GitHub's description
//
// Every answer is built from the example response GitHub records for the
// operation in its published OpenAPI description (github/rest-api-description,
// version 2022-11-28), with the fake's own values laid over it, so that a
// field GitHub sends is there even when no client of the fake reads it.
// testdata/openapi holds the extract (the operations, their schemas and
// their examples, and where they come from), and a test validates every
// answer, errors and 304s included, against those schemas.
//
// Code search matches as GitHub's legacy code search does: whole words
// (runs of letters, digits and underscores), case-insensitively, in files of
// the default branch smaller than 384 KB, with the qualifiers repo:, path:,
// filename: and extension:. A term inside a longer word does not match.
//
// # What a client must cope with
//
// What a good API citizen must cope with is there too, each switchable
// from the test:
//
//   - ETag on every 200 and 304 Not Modified for a matching If-None-Match,
//     which does not count against the rate limit;
//   - pagination with Link headers (code search: page, per_page);
//   - primary rate limits per resource ("core", "search") with the
//     X-RateLimit-* headers, refused with 403 (or 429) past the limit until
//     the reset ([Server.SetRateLimit], with [Options.Now] as the clock);
//   - secondary rate limits and server errors with Retry-After ([Server.Fail]);
//   - 404 for a missing repository, path, ref or object, and for a private
//     repository asked without a token; 401 for a token it does not know;
//   - truncated trees ([Options.TreeLimit], [Options.DirLimit]);
//   - symlinks (mode 120000) and submodules (160000).
//
// # Counting requests
//
// Every request is logged with its route, Accept and If-None-Match headers
// and status ([Server.Requests], [Server.Count], [Server.Counts]), so that
// a test can assert what a client cost.
package githubtest
