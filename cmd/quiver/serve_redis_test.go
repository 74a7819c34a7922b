//go:build linux

package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/redistest"
)

// bigLines is the number of lines of the big output: about 50 MB.
const bigLines = 1_000_000

// bigCommand prints bigLines lines of 52 bytes or so, "line N of ...".
var bigCommand = []string{"sh", "-c", fmt.Sprintf("seq -f 'line %%.0f of the big output, stored through replica A' 1 %d", bigLines)}

// TestServeReplicasShareRedis is issue 30's acceptance: two quiver serve
// --http processes, each with a workspace and a cache directory of its
// own, share one redis-server (A's set in its quiver.toml, B's in
// QUIVER_OUTPUT_STORE). A 50 MB output stored through replica A is
// paged and grepped through replica B, whose memory grows by a bounded
// buffer, not the output; with Redis killed in the middle of a call the
// output is not kept and says why, reads fail STORE_UNAVAILABLE and B is
// not ready; with Redis back, new calls work again.
func TestServeReplicasShareRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB through two servers and Redis")
	}
	redis := redistest.Start(t, true)
	// A is configured by its trusted quiver.toml, B by the environment
	// alone, as a container is.
	dirA := workdir(t, map[string]string{"quiver.toml": serveConfig + "[output]\nstore = \"" + redis.URL() + "\"\n"})
	dirB := workdir(t, nil)
	trust(t, dirA)
	heap := filepath.Join(t.TempDir(), "heap-b")
	a := startServe(t, dirA, "--shutdown-grace", "1s")
	b := startServeEnv(t, dirB, []string{heapReportEnv + "=" + heap, "QUIVER_OUTPUT_STORE=" + redis.URL(), "QUIVER_SANDBOX_DISABLED=true"},
		"--shutdown-grace", "1s")
	ca, cb := connectSDK(t, a.url, &http.Client{}), connectSDK(t, b.url, &http.Client{})
	defer ca.Close()
	defer cb.Close()

	code, out := callCode(t, ca, "exec_command", map[string]any{"argv": bigCommand, "timeout_secs": 600})
	ref, _ := out["output_ref"].(string)
	if code != "" || ref == "" {
		t.Fatalf("the big command on A: %s, no ref: %v", code, trimmed(out))
	}
	size, _ := out["total_bytes"].(float64)
	if size < 50e6 {
		t.Fatalf("the big output is %v bytes, want 50 MB or more", size)
	}

	// B warms up (its session, the tools, Redis's connections), then pages
	// and greps the far end of the output.
	if code, out := callCode(t, cb, "tool_output_cache", map[string]any{"ref_id": ref, "limit": 10}); code != "" {
		t.Fatalf("B's first read: %s %v", code, trimmed(out))
	}
	before := mappedBytes(t, heap)
	code, out = callCode(t, cb, "tool_output_cache", map[string]any{"ref_id": ref, "offset": 900_000, "limit": 100})
	if content, _ := out["content"].(string); code != "" || !strings.Contains(content, "line 900000 of the big output") || out["end_line"] != float64(900_099) {
		t.Fatalf("B paging line 900,000: %s %v", code, trimmed(out))
	}
	code, out = callCode(t, cb, "tool_output_cache_grep", map[string]any{"ref_id": ref, "pattern": "line 999999 of"})
	if code != "" || out["matches"] != float64(1) {
		t.Fatalf("B grepping the last lines: %s %v", code, trimmed(out))
	}
	code, out = callCode(t, cb, "tool_output_cache_grep", map[string]any{"ref_id": ref, "pattern": "replica A", "max_matches": 1})
	if code != "" || out["matches"] != float64(bigLines) {
		t.Fatalf("B counting every line: %s %v", code, trimmed(out))
	}
	after := mappedBytes(t, heap)
	grew := int64(after) - int64(before)
	t.Logf("B's mapped memory: %d MiB before the reads, %d MiB after (grew %d MiB) for a %.0f-byte output",
		before>>20, after>>20, grew>>20, size)
	if grew > 24<<20 {
		t.Errorf("B's memory grew by %d MiB reading a 50 MB output: it should hold a bounded buffer, not the output", grew>>20)
	}

	t.Run("Redis killed in the middle of a call, then restarted", func(t *testing.T) {
		flag, proceed := filepath.Join(dirA, "started"), filepath.Join(dirA, "proceed")
		script := fmt.Sprintf("seq -f 'first half %%.0f' 1 200000; touch %s; while [ ! -e %s ]; do sleep 0.05; done; seq -f 'second half %%.0f' 1 200000", flag, proceed)
		call := make(chan map[string]any, 1)
		go func() {
			_, out := callCode(t, ca, "exec_command", map[string]any{"argv": []string{"sh", "-c", script}, "timeout_secs": 600})
			call <- out
		}()
		awaitFile(t, flag)
		redis.Kill()
		if err := os.WriteFile(proceed, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		out := <-call
		text, _ := out["output"].(string)
		if out["output_ref"] != nil || !strings.Contains(text, "the full output could not be kept") || !strings.Contains(text, "output store is unavailable") {
			t.Errorf("a command whose output Redis stopped taking: ref %v, marker not saying why: %.2000s", out["output_ref"], text)
		}
		if code, out := callCode(t, cb, "tool_output_cache", map[string]any{"ref_id": ref}); code != "STORE_UNAVAILABLE" {
			t.Errorf("B reading with Redis down: %s %v, want STORE_UNAVAILABLE", code, trimmed(out))
		}
		if status := probe(t, b.url, "/readyz"); status != http.StatusServiceUnavailable {
			t.Errorf("B's /readyz with Redis down: %d, want 503", status)
		}
		if status := probe(t, b.url, "/healthz"); status != http.StatusOK {
			t.Errorf("B's /healthz with Redis down: %d, want 200 (alive, not ready)", status)
		}

		redis.Restart()
		if status := probe(t, b.url, "/readyz"); status != http.StatusOK {
			t.Errorf("B's /readyz with Redis back: %d, want 200", status)
		}
		if code, _ := callCode(t, cb, "tool_output_cache", map[string]any{"ref_id": ref}); code != "INVALID_ARGUMENTS" {
			t.Errorf("the old ref after a restart of a Redis that persists nothing: %s, want INVALID_ARGUMENTS (not found)", code)
		}
		code, out = callCode(t, ca, "exec_command", map[string]any{"argv": []string{"seq", "1", "300000"}})
		ref, _ := out["output_ref"].(string)
		if code != "" || ref == "" {
			t.Fatalf("a new big output on A with Redis back: %s %v", code, trimmed(out))
		}
		code, out = callCode(t, cb, "tool_output_cache", map[string]any{"ref_id": ref, "offset": 299_999})
		if content, _ := out["content"].(string); code != "" || !strings.Contains(content, "300000") {
			t.Errorf("B reading the new output: %s %v", code, trimmed(out))
		}
	})
}

// probe returns the status of GET path on the server of an MCP URL.
func probe(t *testing.T, mcpURL, path string) int {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(mcpURL, "/mcp") + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// awaitFile waits for a file a command creates.
func awaitFile(t *testing.T, file string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) { // a hang guard
		if _, err := os.Stat(file); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear within two minutes", file)
}

// trimmed is a structured result short enough for a message.
func trimmed(out map[string]any) string {
	s := fmt.Sprint(out)
	if len(s) > 1500 {
		s = s[:1500] + "..."
	}
	return s
}
