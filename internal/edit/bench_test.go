//go:build unix

package edit

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkEdit edits one place near the end of a generated Go-like file of
// 25 MB and of 50 MB, the whole way the edit tool does: decode, find, apply,
// diff, encode. "exact" finds old_string byte for byte; "indentation" has
// old_string written with spaces where the file has tabs, so the exact,
// line-trimmed and whitespace-normalized scans all run over the whole file
// before indentation-flexible matches. Time per operation should double from
// 25 to 50 MB: every strategy is one pass. cpu-ns/op is the process's CPU
// time per operation, which other load on the machine does not inflate.
//
//	go test ./internal/edit -run '^$' -bench BenchmarkEdit -benchtime 5x
func BenchmarkEdit(b *testing.B) {
	for _, mb := range []int{25, 50} {
		content := benchFile(mb << 20)
		for _, c := range []struct{ name, old, new string }{
			{"exact", "\tfield_target := compute(99)\n", "\tfield_target := compute(100)\n"},
			{"indentation", "    field_target := compute(99)\n    return field_target", "    field_target := compute(100)\n    return field_target"},
		} {
			b.Run(fmt.Sprintf("%s/%dMB", c.name, mb), func(b *testing.B) {
				b.SetBytes(int64(len(content)))
				cpu := cpuTime()
				defer func() { b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op") }()
				for b.Loop() {
					text, f := Decode(content)
					m, err := Find(text, Edit{Old: f.Normalize(c.old), New: f.Normalize(c.new)})
					if err != nil {
						b.Fatal(err)
					}
					out := f.Encode(Apply(text, m.Changes))
					if diff := Unified("a/f", "b/f", text, m.Changes); len(out) == 0 || diff == "" {
						b.Fatal("no change")
					}
				}
			})
		}
	}
}

// cpuTime returns the CPU time (user and system) this process has used. The
// benchmark reports it per operation beside the wall time: on a machine
// shared with other work the wall time measures the neighbours too, the CPU
// time only the edit.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchFile returns about size bytes of tab-indented functions, with one
// unique target function near the end.
func benchFile(size int) []byte {
	var b strings.Builder
	b.Grow(size + 1024)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func f%d() int {\n\tfield_%d := compute(%d)\n\treturn field_%d\n}\n\n", i, i, i%97, i)
	}
	b.WriteString("func target() int {\n\tfield_target := compute(99)\n\treturn field_target\n}\n")
	return []byte(b.String())
}
