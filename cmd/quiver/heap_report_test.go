package main

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"
)

// heapReportEnv names the file a quiver command started by these tests
// writes its memory figure to, when set.
const heapReportEnv = "QUIVER_TEST_HEAP_REPORT"

// reportHeap makes the command, when heapReportEnv is set, write "SEQ
// BYTES" to that file every 20 ms: BYTES is the memory the Go runtime has
// mapped (runtime/metrics /memory/classes/total:bytes), which the runtime
// does not give back, so it never falls: a value written after a call is
// at least the peak the call reached. Unlike the resident size it holds
// nothing of the race detector's shadow memory, so it means the same with
// -race.
func reportHeap() {
	file := os.Getenv(heapReportEnv)
	if file == "" {
		return
	}
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
		for seq := 1; ; seq++ {
			metrics.Read(sample)
			tmp := file + ".tmp"
			if os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", seq, sample[0].Value.Uint64()), 0o600) == nil {
				os.Rename(tmp, file)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
}

// mappedBytes reads a fresh figure from a command's heap report: one
// written after this call began.
func mappedBytes(t *testing.T, file string) uint64 {
	t.Helper()
	read := func() (int, uint64) {
		b, err := os.ReadFile(file)
		if err != nil {
			return 0, 0
		}
		seq, bytes, _ := strings.Cut(string(b), " ")
		n, _ := strconv.Atoi(seq)
		v, _ := strconv.ParseUint(bytes, 10, 64)
		return n, v
	}
	first, _ := read()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) { // a hang guard
		if seq, v := read(); seq > first+1 {
			return v
		}
	}
	t.Fatalf("the command wrote no heap report to %s within a minute", file)
	return 0
}
