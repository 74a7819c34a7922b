package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestHugeOutputAcrossProcesses is issue 6's acceptance: a tool printing
// over 5 MB through `quiver call` shows the head, the tail and the marker,
// and a later process reads the stored whole back, including a line from the
// omitted middle, by paging and by grep.
func TestHugeOutputAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"keep": ""})
	r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"seq 1 800000"}`)
	if r.code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	if !strings.Contains(r.stdout, "trimmed\n1\n2\n3\n") || !strings.Contains(r.stdout, "\n799999\n800000\n") {
		t.Errorf("head or tail missing: %.80q ... %.80q", r.stdout, r.stdout[max(0, len(r.stdout)-80):])
	}
	if len(r.stdout) > 64<<10 {
		t.Errorf("the model view is %d bytes: it was not trimmed", len(r.stdout))
	}
	m := regexp.MustCompile(`\[\.\.\. (\d+) lines \(\d+ bytes\) omitted; full output: ref=(out_[a-z0-9]+), read it with tool_output_cache or search it with tool_output_cache_grep \.\.\.\]`).
		FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no marker in the output: %.300q", r.stdout[len(r.stdout)/2-150:])
	}
	ref := m[2]
	page := runCLI(t, dir, "", "call", "tool_output_cache", `{"ref_id":"`+ref+`","offset":400001,"limit":2}`)
	if page.code != 0 || !strings.HasPrefix(page.stdout, "400001\t400001\n400002\t400002\n") {
		t.Errorf("tool_output_cache in a second process: %+v", page)
	}
	grep := runCLI(t, dir, "", "call", "tool_output_cache_grep", `{"ref_id":"`+ref+`","pattern":"^400001$","regex":true}`)
	if grep.code != 0 || !strings.Contains(grep.stdout, "400001:400001") || !strings.Contains(grep.stdout, "1 matching lines") {
		t.Errorf("tool_output_cache_grep in a third process: %+v", grep)
	}
	bad := runCLI(t, dir, "", "call", "tool_output_cache", `{"ref_id":"../../etc/passwd"}`)
	if bad.code != 1 || !strings.Contains(bad.stderr, "INVALID_ARGUMENTS") {
		t.Errorf("a path as a ref: %+v", bad)
	}
}

// TestOutputBudgetFromConfigHoldsExecCommand: [output] max_bytes and
// max_lines bound what exec_command shows, as they bound every tool's
// output: the command's view is within them and carries one marker (it was
// trimmed once, as it streamed), and its ref holds the whole.
func TestOutputBudgetFromConfigHoldsExecCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, output string
		maxBytes     int
		maxLines     int
	}{
		{"max_bytes", "max_bytes = 4000", 4000, 2000},
		{"max_lines", "max_lines = 60", 50 << 10, 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := workdir(t, map[string]string{"quiver.toml": "[output]\n" + tt.output + "\n"})
			r := runCLI(t, dir, "", "--yes", "call", "exec_command", `{"command":"seq 1 100000"}`)
			if r.code != 0 {
				t.Fatalf("exec: %+v", r)
			}
			view := strings.TrimSuffix(r.stdout, "\n") // the CLI ends what it prints with a newline
			lines := len(strings.Split(strings.TrimSuffix(view, "\n"), "\n"))
			if len(view) > tt.maxBytes || lines > tt.maxLines {
				t.Errorf("the view is %d bytes, %d lines; [output] %s", len(view), lines, tt.output)
			}
			if !strings.Contains(view, "trimmed\n1\n2\n3\n") || !strings.HasSuffix(view, "\n99999\n100000\n") {
				t.Errorf("head or tail missing: %.100q ... %.100q", view, view[max(0, len(view)-100):])
			}
			markers := regexp.MustCompile(`\[\.\.\. \d+ lines \(\d+ bytes\) omitted; full output: ref=(out_[a-z0-9]+), `).FindAllStringSubmatch(view, -1)
			if len(markers) != 1 || strings.Count(view, " omitted; ") != 1 {
				t.Fatalf("want one marker, got %d:\n%s", strings.Count(view, " omitted; "), view)
			}
			page := runCLI(t, dir, "", "call", "tool_output_cache", `{"ref_id":"`+markers[0][1]+`","offset":50000,"limit":1}`)
			if page.code != 0 || !strings.Contains(page.stdout, "50000\t50000\n") {
				t.Errorf("the ref does not hold the whole output: %+v", page)
			}
		})
	}
}
