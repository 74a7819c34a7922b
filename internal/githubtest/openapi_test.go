package githubtest_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/internal/githubtest"
)

// description is the part of GitHub's OpenAPI description the fake serves
// (testdata/openapi, whose README says where it comes from), with every
// schema reference pointed at $defs, where a JSON Schema validator looks.
type description struct {
	paths     map[string]map[string]any // operationId: the operation
	defs      map[string]any            // components/schemas
	responses map[string]any            // components/responses
	examples  map[string]any            // components/examples, their values
	compiled  map[string]*jsonschema.Resolved
}

func loadDescription(t *testing.T) *description {
	t.Helper()
	read := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join("testdata", "openapi", name))
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.ReplaceAll(string(b), `"#/components/schemas/`, `"#/$defs/`))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	d := &description{paths: map[string]map[string]any{}, examples: read("examples.json"), compiled: map[string]*jsonschema.Resolved{}}
	for id, op := range read("operations.json")["paths"].(map[string]any) {
		d.paths[id] = op.(map[string]any)
	}
	c := read("components.json")
	d.defs, d.responses = c["schemas"].(map[string]any), c["responses"].(map[string]any)
	return d
}

// fallback names the shared response an error answer of a status the
// operation does not list is checked against: GitHub answers every
// operation's authentication, rate-limit and server errors, and the
// description lists them on some operations only. Any other status is
// checked against basic-error, GitHub's error body.
var fallback = map[int]string{
	http.StatusNotModified: "not_modified", http.StatusUnauthorized: "requires_authentication",
	http.StatusForbidden: "forbidden", http.StatusNotFound: "not_found",
	http.StatusUnprocessableEntity: "validation_failed", http.StatusInternalServerError: "internal_error",
	http.StatusServiceUnavailable: "service_unavailable",
}

// schemaFor is the schema of op's answer with status and media type, or
// nil when the description gives that answer no body.
func (d *description) schemaFor(t *testing.T, op string, status int, media string) map[string]any {
	t.Helper()
	o, ok := d.paths[op]
	if !ok {
		t.Fatalf("no operation %s in testdata/openapi/operations.json", op)
	}
	resp, ok := o["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	if !ok {
		name, ok := fallback[status]
		if !ok {
			return map[string]any{"$ref": "#/$defs/basic-error"}
		}
		resp = map[string]any{"$ref": "#/components/responses/" + name}
	}
	if ref, ok := resp["$ref"].(string); ok {
		resp = d.responses[strings.TrimPrefix(ref, "#/components/responses/")].(map[string]any)
	}
	content, ok := resp["content"].(map[string]any)
	if !ok {
		return nil
	}
	byMedia, ok := content[media].(map[string]any)
	if !ok {
		t.Fatalf("%s %d: the description gives no %s answer", op, status, media)
	}
	return byMedia["schema"].(map[string]any)
}

// validate checks instance against schema, with every component schema as
// $defs; each schema is resolved once.
func (d *description) validate(schema map[string]any, instance any) error {
	key, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	resolved, ok := d.compiled[string(key)]
	if !ok {
		root := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": d.defs}
		for k, v := range schema {
			root[k] = v
		}
		b, err := json.Marshal(root)
		if err != nil {
			return err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if resolved, err = s.Resolve(nil); err != nil {
			return err
		}
		d.compiled[string(key)] = resolved
	}
	return resolved.Validate(instance)
}

// checkAnswer validates one answer of op against the description: its body
// against the schema of its status and media type, or no body where the
// description gives none.
func (d *description) checkAnswer(t *testing.T, op string, a answer) {
	t.Helper()
	media, _, err := mime.ParseMediaType(a.header.Get("Content-Type"))
	if err != nil && len(a.body) > 0 {
		t.Fatalf("%s %d: Content-Type %q: %v", op, a.status, a.header.Get("Content-Type"), err)
	}
	schema := d.schemaFor(t, op, a.status, media)
	if schema == nil {
		if len(a.body) != 0 {
			t.Errorf("%s %d: a body where the description gives none: %q", op, a.status, a.body)
		}
		return
	}
	var body any
	if media == "application/json" {
		if err := json.Unmarshal(a.body, &body); err != nil {
			t.Fatalf("%s %d: %v\n%s", op, a.status, err, a.body)
		}
	} else {
		body = string(a.body)
	}
	if err := d.validate(schema, body); err != nil {
		t.Errorf("%s %d does not match the description: %v\n%s", op, a.status, err, a.body)
		return
	}
	if m, ok := body.(map[string]any); ok && a.status == http.StatusOK && !d.dropBreaks(schema, m) {
		t.Errorf("%s %d: the schema still accepts the answer with any one of its fields dropped, so it checks nothing", op, a.status)
	}
}

// dropBreaks reports whether dropping some field of m makes it invalid:
// that a fake answer missing or renaming a field fails the check.
func (d *description) dropBreaks(schema, m map[string]any) bool {
	for k := range m {
		less := make(map[string]any, len(m))
		for k2, v := range m {
			if k2 != k {
				less[k2] = v
			}
		}
		less[k+"_renamed"] = m[k]
		if d.validate(schema, less) != nil {
			return true
		}
	}
	return false
}

// openAPIFixture is fixture's repository, a directory limit of 4, and a
// second repository of symlinks and a file over the contents API's 1 MB; it
// returns the fake, the head commit and a blob's sha.
func openAPIFixture(t *testing.T, now time.Time) (*githubtest.Server, string, string) {
	t.Helper()
	s, head := fixture(t, githubtest.Options{Now: func() time.Time { return now }, DirLimit: 4})
	big := strings.Repeat("x", 1<<20+1)
	if _, err := s.AddRepo(githubtest.Repo{Owner: "acme", Name: "links", Files: append(githubtest.Files("doc/a.md", "a\n", "big.txt", big),
		githubtest.File{Path: "doc/up", Content: []byte("../big.txt"), Mode: githubtest.ModeSymlink},
		githubtest.File{Path: "dangling", Content: []byte("nowhere"), Mode: githubtest.ModeSymlink})}); err != nil {
		t.Fatal(err)
	}
	listing := decode[tree](t, get(t, s, "/repos/acme/app/git/trees/main?recursive=1"))
	return s, head, listing.Tree[slices.IndexFunc(listing.Tree, func(it treeItem) bool { return it.Type == "blob" })].SHA
}

// TestAnswersMatchOpenAPI: every answer the fake gives has the shape
// GitHub's OpenAPI description gives that operation's answer of that
// status.
func TestAnswersMatchOpenAPI(t *testing.T) {
	d := loadDescription(t)
	s, head, blob := openAPIFixture(t, time.Unix(1_800_000_000, 0))
	cases := []struct {
		op, path string
		header   []string
		status   int
	}{
		{"rate-limit/get", "/rate_limit", nil, 200},
		{"repos/get", "/repos/acme/app", nil, 200},
		{"repos/get", "/repos/acme/none", nil, 404},
		{"repos/get", "/repos/acme/app", []string{"Authorization", ""}, 404},
		{"repos/get", "/repos/acme/app", []string{"Authorization", "Bearer nope"}, 401},
		{"repos/get-branch", "/repos/acme/app/branches/main", nil, 200},
		{"repos/get-branch", "/repos/acme/app/branches/nope", nil, 404},
		{"git/get-ref", "/repos/acme/app/git/ref/heads/main", nil, 200},
		{"git/get-ref", "/repos/acme/app/git/ref/heads/nope", nil, 404},
		{"repos/get-commit", "/repos/acme/app/commits/main", nil, 200},
		{"repos/get-commit", "/repos/acme/app/commits/main", []string{"Accept", "application/vnd.github.sha"}, 200},
		{"repos/get-commit", "/repos/acme/app/commits/nope", nil, 422},
		{"git/get-commit", "/repos/acme/app/git/commits/" + head, nil, 200},
		{"git/get-commit", "/repos/acme/app/git/commits/" + strings.Repeat("0", 40), nil, 404},
		{"git/get-tree", "/repos/acme/app/git/trees/" + head, nil, 200}, // truncated at DirLimit
		{"git/get-tree", "/repos/acme/app/git/trees/main?recursive=1", nil, 200},
		{"git/get-tree", "/repos/acme/app/git/trees/nope", nil, 404},
		{"git/get-blob", "/repos/acme/app/git/blobs/" + blob, nil, 200},
		{"git/get-blob", "/repos/acme/app/git/blobs/" + strings.Repeat("0", 40), nil, 404},
		{"repos/get-content", "/repos/acme/app/contents/src?ref=main", nil, 200},
		{"repos/get-content", "/repos/acme/app/contents/", nil, 200},
		{"repos/get-content", "/repos/acme/app/contents/README.md", nil, 200},
		{"repos/get-content", "/repos/acme/app/contents/link", nil, 200}, // a symlink to a file: the file
		{"repos/get-content", "/repos/acme/links/contents/dangling", nil, 200},
		{"repos/get-content", "/repos/acme/links/contents/doc/up", nil, 200},
		{"repos/get-content", "/repos/acme/links/contents/big.txt", nil, 200},
		{"repos/get-content", "/repos/acme/app/contents/vendor/lib", nil, 200},
		{"repos/get-content", "/repos/acme/app/contents/vendor", nil, 200}, // lists the submodule
		{"repos/get-content", "/repos/acme/app/contents/nope", nil, 404},
		{"search/code", "/search/code?q=auth+repo:acme/app", []string{"Accept", "application/vnd.github.text-match+json"}, 200},
		{"search/code", "/search/code?q=nothing+repo:acme/app", nil, 200},
		{"search/code", "/search/code?q=auth", nil, 422},
		{"search/code", "/search/code?q=auth+repo:acme/none", nil, 422},
		{"search/code", "/search/code?q=auth+repo:acme/app", []string{"Authorization", ""}, 401},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %d %s", tc.op, tc.status, tc.path), func(t *testing.T) {
			a := get(t, s, tc.path, tc.header...)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.body)
			}
			d.checkAnswer(t, tc.op, a)
		})
	}

}

// TestConditionalAndLimitAnswersMatchOpenAPI: 304s carry no body, and the
// rate-limit, secondary-limit and server-error answers have the error shape
// the description gives.
func TestConditionalAndLimitAnswersMatchOpenAPI(t *testing.T) {
	d := loadDescription(t)
	now := time.Unix(1_800_000_000, 0)
	s, _, blob := openAPIFixture(t, now)
	t.Run("conditional", func(t *testing.T) {
		for _, c := range []struct{ op, path string }{{"git/get-ref", "/repos/acme/app/git/ref/heads/main"},
			{"repos/get-content", "/repos/acme/app/contents/README.md"}, {"search/code", "/search/code?q=auth+repo:acme/app"}} {
			first := get(t, s, c.path)
			again := get(t, s, c.path, "If-None-Match", first.header.Get("ETag"))
			if again.status != http.StatusNotModified {
				t.Fatalf("%s with its ETag: %d", c.path, again.status)
			}
			d.checkAnswer(t, c.op, again)
		}
	})
	t.Run("limits", func(t *testing.T) {
		s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 0, Reset: now.Add(time.Hour)})
		for _, c := range []struct{ op, path string }{{"repos/get", "/repos/acme/app"}, {"git/get-tree", "/repos/acme/app/git/trees/main"}} {
			if a := get(t, s, c.path); a.status != http.StatusForbidden {
				t.Errorf("%s over the limit: %d", c.path, a.status)
			} else {
				d.checkAnswer(t, c.op, a)
			}
		}
		s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 0, Reset: now.Add(time.Hour), Status: 429})
		if a := get(t, s, "/repos/acme/app/git/blobs/"+blob); a.status != http.StatusTooManyRequests {
			t.Errorf("over a 429 limit: %d", a.status)
		} else {
			d.checkAnswer(t, "git/get-blob", a)
		}
		s.SetRateLimit(githubtest.RateLimit{Resource: "search", Limit: 30, Remaining: 0, Reset: now.Add(time.Minute)})
		if a := get(t, s, "/search/code?q=auth+repo:acme/app"); a.status != http.StatusForbidden {
			t.Errorf("search over its limit: %d", a.status)
		} else {
			d.checkAnswer(t, "search/code", a)
		}
		s.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 5000, Reset: now.Add(time.Hour)})
		s.Fail(githubtest.Failure{Route: githubtest.RouteRepo, RetryAfter: 60, Secondary: true})
		s.Fail(githubtest.Failure{Route: githubtest.RouteCommit, Status: http.StatusServiceUnavailable})
		for _, c := range []struct {
			op, path string
			status   int
		}{{"repos/get", "/repos/acme/app", 403}, {"repos/get-commit", "/repos/acme/app/commits/main", 503}} {
			if a := get(t, s, c.path); a.status != c.status {
				t.Errorf("%s with a failure queued: %d, want %d", c.path, a.status, c.status)
			} else {
				d.checkAnswer(t, c.op, a)
			}
		}
	})
}

// TestRecordedExamplesMatchOpenAPI: the examples the fake starts from match
// their operations' schemas, but for the one disagreement in GitHub's own
// description that testdata/openapi/README.md records (the fake's overlay
// sends the field).
func TestRecordedExamplesMatchOpenAPI(t *testing.T) {
	d := loadDescription(t)
	known := map[string]bool{"full-repository-default-response": true} // no language, which full-repository requires
	seen := map[string]bool{}
	for id, op := range d.paths {
		for status, r := range op["responses"].(map[string]any) {
			content, ok := r.(map[string]any)["content"].(map[string]any)
			if !ok {
				continue
			}
			code, _ := strconv.Atoi(status)
			for media, m := range content {
				for _, ex := range m.(map[string]any)["examples"].(map[string]any) {
					name, ok := ex.(map[string]any)["$ref"].(string)
					if !ok {
						continue
					}
					name = strings.TrimPrefix(name, "#/components/examples/")
					seen[name] = true
					err := d.validate(d.schemaFor(t, id, code, media), d.examples[name])
					if (err != nil) != known[name] {
						t.Errorf("%s %s, example %s: %v (known to disagree: %v)", id, status, name, err, known[name])
					}
				}
			}
		}
	}
	for name := range d.examples {
		if !seen[name] {
			t.Errorf("examples.json holds %s, which no operation names", name)
		}
	}
}
