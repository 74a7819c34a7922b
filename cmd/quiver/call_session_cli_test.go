package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// Each quiver call is a session of its own: a read_file in one call does not
// let write_file of the next replace the file, and the refusal says the one
// way that works from the command line, expected_sha256.
func TestCallWriteOverExistingNeedsSHA(t *testing.T) {
	t.Parallel()
	const old = "precious work\n"
	dir := workdir(t, map[string]string{"f.txt": old})
	if r := runCLI(t, dir, "", "call", "read_file", `{"path":"f.txt"}`); r.code != 0 {
		t.Fatalf("read_file: exit %d, stderr %q", r.code, r.stderr)
	}
	r := runCLI(t, dir, "", "--yes", "call", "write_file", `{"path":"f.txt","content":"new\n"}`)
	if r.code != exitTool || !strings.Contains(r.stderr, "only call of its session") || !strings.Contains(r.stderr, "expected_sha256") ||
		strings.Contains(r.stderr, "read_file on it first") {
		t.Fatalf("write_file after a read in another call: exit %d, stderr %q; want a refusal naming expected_sha256 alone", r.code, r.stderr)
	}
	sum := sha256.Sum256([]byte(old))
	r = runCLI(t, dir, "", "--yes", "call", "write_file", `{"path":"f.txt","content":"new\n","expected_sha256":"`+hex.EncodeToString(sum[:])+`"}`)
	if r.code != 0 {
		t.Errorf("write_file with expected_sha256: exit %d, stderr %q", r.code, r.stderr)
	}
}
