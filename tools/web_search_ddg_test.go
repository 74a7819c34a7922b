package tools

import (
	stdcmp "cmp"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
)

// ddgReply is what the loopback DuckDuckGo answers one query with: a file
// of testdata/websearch (or a literal body) and a status, per endpoint.
type ddgReply struct {
	page, instant             string
	pageStatus, instantStatus int
}

// ddgServer serves testdata/websearch in DuckDuckGo's place: /html/ is the
// results page, / with format=json the Instant Answer API. It records the
// requests it got, as "METHOD PATH?QUERY".
func ddgServer(t *testing.T, replies map[string]ddgReply) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		reply, ok := replies[r.URL.Query().Get("q")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		name, status, ctype := reply.page, reply.pageStatus, "text/html; charset=UTF-8"
		if r.URL.Path == "/" && r.URL.Query().Get("format") == "json" {
			name, status, ctype = reply.instant, reply.instantStatus, "application/x-javascript"
		} else if r.URL.Path != "/html/" {
			http.NotFound(w, r)
			return
		}
		body := []byte(name)
		if strings.HasPrefix(name, "ddg-") {
			var err error
			if body, err = os.ReadFile(filepath.Join("testdata", "websearch", name)); err != nil {
				t.Error(err)
			}
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(stdcmp.Or(status, http.StatusOK))
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

func TestWebSearchDuckDuckGo(t *testing.T) {
	srv, requests := ddgServer(t, map[string]ddgReply{
		"golang programming language": {page: "ddg-html-golang.html", instant: "ddg-instant-golang.json"},
		"nothing instant":             {page: "ddg-html-golang.html", instant: "ddg-instant-empty.json"},
		"zqxjvwkqpzzq":                {page: "ddg-html-noresults.html", instant: "ddg-instant-empty.json"},
		"challenged, with abstract":   {page: "ddg-html-challenge.html", pageStatus: http.StatusAccepted, instant: "ddg-instant-golang.json"},
		"instant answer broken":       {page: "ddg-html-golang.html", instant: "<html>oops</html>"},
		"one plus one":                {page: "ddg-html-noresults.html", instant: `{"Answer":"1 + 1 = 2","AnswerType":"calc","RelatedTopics":[],"Results":[]}`},
		"widget answer":               {page: "ddg-html-noresults.html", instant: `{"Answer":{"data":{"x":1},"templates":{}},"RelatedTopics":[],"Results":[]}`},
	})
	cfg := WebConfig{DuckDuckGoURL: srv.URL + "/?ignored=1"}
	tests := []struct {
		name, args string
		view       string // the rendered result, in testdata/websearch when it ends in .golden
	}{
		{"the recorded results page and an abstract: abstract and official site first, then the web, then related topics",
			`{"query": "golang programming language", "max_results": 50}`, "ddg-golang.golden"},
		{"max_results cuts the merged list",
			`{"query": "golang programming language", "max_results": 3}`,
			"1. Go (programming language)\n   https://en.wikipedia.org/wiki/Go_(programming_language)\n   Go is a high-level general purpose programming language that is statically typed and compiled.\n" +
				"2. Official site\n   https://go.dev/\n" +
				"3. Golang Tutorial - Learn Go Programming Language - GeeksforGeeks\n   https://www.geeksforgeeks.org/go-language/golang-tutorial-learn-go-programming-language/\n" +
				"   This Golang tutorial provides you with all the insights into Go Language programming, Here we provide the basics, from how to install Golang to advanced concepts of Go programming with stable examples. So, if you are a professional and a beginner, this free Golang tutorial is the best place for your learning.\n"},
		{"no instant answer (most queries): the web results alone", `{"query": "nothing instant", "max_results": 1}`,
			"1. The Go Programming Language\n   https://go.dev/\n   Go is an open source programming language that makes it simple to build secure, scalable systems.\n"},
		{"a page that says No results is an honest empty answer", `{"query": "zqxjvwkqpzzq"}`,
			`No results for "zqxjvwkqpzzq".`},
		{"a direct answer is shown first", `{"query": "one plus one"}`, "Answer: 1 + 1 = 2\n"},
		{"an answer that is a widget object is not text", `{"query": "widget answer"}`, `No results for "widget answer".`},
		{"a challenged results page leaves the instant answers, and says so", `{"query": "challenged, with abstract", "max_results": 1}`,
			"1. Go (programming language)\n   https://en.wikipedia.org/wiki/Go_(programming_language)\n   Go is a high-level general purpose programming language that is statically typed and compiled.\n" +
				`(only DuckDuckGo's instant answers are shown; its web results failed: DuckDuckGo's results page: answered 202 Accepted: "<!DOCTYPE html><html lang=\"en\"><head><title>DuckDuckGo</title></head><body><form id=\"challenge-form\" action=\"//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet\" method=\"POST\"><div class=\"anomaly-modal_...")` + "\n"},
		{"a broken instant answer leaves the web results, and says so", `{"query": "instant answer broken", "max_results": 1}`,
			"1. The Go Programming Language\n   https://go.dev/\n   Go is an open source programming language that makes it simple to build secure, scalable systems.\n" +
				`(DuckDuckGo's instant answers are missing: DuckDuckGo's Instant Answer API (200 OK) parsed to nothing: not a JSON object; it begins "<html>oops</html>")` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := webSearchCall(t, cfg, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.view
			if strings.HasSuffix(want, ".golden") {
				b, err := os.ReadFile(filepath.Join("testdata", "websearch", want))
				if err != nil {
					t.Fatal(err)
				}
				want = string(b)
			}
			if diff := cmp.Diff(want, got.Render().String()); diff != "" {
				t.Errorf("view (-want +got):\n%s", diff)
			}
		})
	}
	for _, r := range requests() {
		if !strings.HasPrefix(r, "GET /html/?q=") && !strings.HasPrefix(r, "GET /?format=json&no_html=1&no_redirect=1&q=") {
			t.Errorf("request %q: want GET /html/?q=... or GET /?format=json...", r)
		}
	}
}

func TestWebSearchDuckDuckGoErrors(t *testing.T) {
	srv, _ := ddgServer(t, map[string]ddgReply{
		"challenged":   {page: "ddg-html-challenge.html", pageStatus: http.StatusAccepted, instant: "ddg-instant-empty.json"},
		"changed page": {page: "<html><body><p>a redesigned page</p></body></html>", instant: "ddg-instant-empty.json"},
		"both down":    {page: "upstream down", pageStatus: http.StatusBadGateway, instant: "upstream down", instantStatus: http.StatusBadGateway},
	})
	cfg := WebConfig{DuckDuckGoURL: srv.URL}
	tests := []struct {
		name, query string
		hints       []string
	}{
		{"a challenge page with nothing instant is an error with status and first bytes, not No results", "challenged",
			[]string{"202 Accepted", "challenge-form"}},
		{"a 200 page that parses to nothing is an error with status and first bytes", "changed page",
			[]string{"(200 OK) parsed to nothing", `no result and no "No results" notice`, "a redesigned page"}},
		{"both endpoints failing names both", "both down",
			[]string{"results page: answered 502 Bad Gateway", "Instant Answer API: answered 502 Bad Gateway", "upstream down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webSearchCall(t, cfg, `{"query": "`+tt.query+`"}`)
			wantToolError(t, err, tool.CodeExecutionFailed, tt.hints...)
		})
	}
}

func TestDuckDuckGoTarget(t *testing.T) {
	tests := []struct {
		href, want string
	}{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2F&rut=abc", "https://go.dev/"},
		{"/l/?uddg=https%3A%2F%2Fexample.org%2Fa%3Fb%3Dc&rut=abc", "https://example.org/a?b=c"},
		{"https://example.org/direct", "https://example.org/direct"},
		{"https://duckduckgo.com/y.js?ad_domain=ads.example&u3=x", ""},
		{"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", ""},
		{"//duckduckgo.com/l/?uddg=file%3A%2F%2F%2Fetc%2Fpasswd", ""},
		{"//duckduckgo.com/l/?rut=abc", ""},
		{"javascript:alert(1)", ""},
		{"/html/?q=next", ""},
		{"http://[::1", ""},
	}
	for _, tt := range tests {
		got, ok := ddgTarget(tt.href)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ddgTarget(%q) = %q, %v; want %q", tt.href, got, ok, tt.want)
		}
	}
}

// FuzzDuckDuckGoHTML holds the results-page parser to its promises on any
// page a hostile network could serve: no panic, and every result links to
// an http or https page with a host.
func FuzzDuckDuckGoHTML(f *testing.F) {
	for _, name := range []string{"ddg-html-golang.html", "ddg-html-noresults.html", "ddg-html-challenge.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", "websearch", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		results, _, err := parseDuckDuckGoHTML(page)
		if err != nil {
			return
		}
		for _, r := range results {
			if !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") {
				t.Errorf("result URL %q is not http(s)", r.URL)
			}
		}
	})
}

// FuzzInstantAnswer: any body either parses or is an error; never a panic.
func FuzzInstantAnswer(f *testing.F) {
	for _, name := range []string{"ddg-instant-golang.json", "ddg-instant-empty.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "websearch", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"RelatedTopics":[{"Topics":[{"Topics":[{"Text":"a - b","FirstURL":"https://x.example/"}]}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		parseInstantAnswer(body)
	})
}
