// Package githubtest is a loopback fake of GitHub's REST API, for tests of
// code that reads repositories through it: no test reaches the network.
//
// It serves repositories built from in-memory file sets ([Repo], [Files])
// or from a real local git repository ([FromGit]), with the object ids git
// gives them, over the operations a read-only client needs: get a
// repository (its default_branch), a branch, a ref, a commit (also as a
// bare sha), a tree (recursive, truncated past a limit as GitHub's are), a
// blob (base64, or raw with the application/vnd.github.raw media types),
// repository contents, and code search. The answers have the shapes of
// GitHub's published OpenAPI description (github/rest-api-description,
// version 2022-11-28); each route names its operationId.
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
