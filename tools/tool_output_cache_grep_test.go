package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

func TestToolOutputCacheGrep(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	log := "ok one\nFAIL: two\nok three\nok four\nfail: five\nok six\n"
	ref := e.put(log)
	long := e.put(strings.Repeat("a", 3000) + "NEEDLE" + strings.Repeat("b", 3000) + "\n")
	cases := []struct {
		name, args, want string
	}{
		{"a literal", `{"ref_id":"` + ref + `","pattern":"FAIL"}`, "     2:FAIL: two\n(1 matching lines of 6)"},
		{"a regex with context", `{"ref_id":"` + ref + `","pattern":"(?i)^fail","regex":true,"before":1}`,
			"     1-ok one\n     2:FAIL: two\n--\n     4-ok four\n     5:fail: five\n(2 matching lines of 6)"},
		{"max_matches", `{"ref_id":"` + ref + `","pattern":"ok","max_matches":2}`,
			"     1:ok one\n--\n     3:ok three\n(4 matching lines of 6; 2 more not shown; raise max_matches (up to 500) or narrow the pattern)"},
		{"no match", `{"ref_id":"` + ref + `","pattern":"panic"}`, `(no line of the 6 in ` + ref + ` matches "panic")`},
		{"a window of a long line", `{"ref_id":"` + long + `","pattern":"NEEDLE"}`,
			"     1:[... 2667 bytes ...]" + strings.Repeat("a", 333) + "NEEDLE" + strings.Repeat("b", 661) + "[... 2339 bytes ...]\n(1 matching lines of 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := e.run(newToolOutputCacheGrep(), c.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, res.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestToolOutputCacheGrepRefusesBadInput(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{}))
	ref := e.put("x\n")
	cases := []struct {
		name, args, msg string
	}{
		{"an invalid regex", `{"ref_id":"` + ref + `","pattern":"a(b","regex":true}`,
			"pattern \"a(b\": bad pattern: error parsing regexp: missing closing ): `a(b`"},
		{"an empty pattern", `{"ref_id":"` + ref + `","pattern":""}`, ""},
		{"a path as the ref", `{"ref_id":"/etc/passwd","pattern":"root"}`, ""},
		{"negative context", `{"ref_id":"` + ref + `","pattern":"x","before":-1}`, ""},
		{"too many matches asked", `{"ref_id":"` + ref + `","pattern":"x","max_matches":100000}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.run(newToolOutputCacheGrep(), c.args)
			te := tool.AsError(err)
			if te == nil || te.Code != tool.CodeInvalidArguments || (c.msg != "" && te.Message != c.msg) {
				t.Errorf("err = %v, want INVALID_ARGUMENTS %s", err, c.msg)
			}
		})
	}
}

func TestToolOutputCacheGrepMatchingEveryLineHoldsTheAnswerLimit(t *testing.T) {
	e := newCacheEnv(t, outputcache.NewMemoryStore(outputcache.MemoryOptions{TempDir: t.TempDir()}))
	ref := e.put(strings.Repeat(strings.Repeat("m", 900)+"\n", 20000))
	res, err := e.run(newToolOutputCacheGrep(), `{"ref_id":"`+ref+`","pattern":"m","max_matches":500,"after":2}`)
	if err != nil {
		t.Fatal(err)
	}
	out := res.Output.(*ToolOutputCacheGrepOutput)
	if len(res.String()) > 64<<10 || !out.AnswerFull || out.Matches != 20000 || int64(out.Shown)+out.NotShown != 20000 {
		t.Errorf("content %d bytes, full %v, matches %d, shown %d, not shown %d", len(out.Content), out.AnswerFull, out.Matches, out.Shown, out.NotShown)
	}
}
