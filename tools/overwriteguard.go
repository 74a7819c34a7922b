package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// The read-before-overwrite guard. write_file refuses to replace a file whose
// current content the model has not seen: it could destroy work the model
// does not know about. "Seen" is tracked by content hash, not by mtime: a
// file read and then touched without change is still seen, and a file
// changed behind the model's back within the same second is not. read_file
// records what it returned; write_file, edit and multi_edit record what they
// wrote, so that the model can keep editing a file without reading it again.

// ReadTrackerKey is the dependency key of the toolkit's [ReadTracker]. It is
// shared: one tracker serves every call of a toolkit. A host may override it,
// for example to share one tracker between toolkits over the same workspace.
var ReadTrackerKey = tool.Key[*ReadTracker]{
	ID:     "quiver.read-tracker",
	Shared: true,
	Create: func(context.Context) (*ReadTracker, error) { return NewReadTracker(), nil },
}

// ReadTracker remembers, per file, the SHA-256 of the content the toolkit's
// tools last read or wrote. It is safe for concurrent use.
type ReadTracker struct {
	mu   sync.Mutex
	sums map[string]string // workspace-relative path -> lowercase hex SHA-256
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{sums: map[string]string{}} }

// Record notes that the content with the given SHA-256 (hex) of the file rel
// (relative to the workspace root) has been seen.
func (r *ReadTracker) Record(rel, sum string) {
	r.mu.Lock()
	r.sums[path.Clean(rel)] = sum
	r.mu.Unlock()
}

// Seen returns the SHA-256 last recorded for rel.
func (r *ReadTracker) Seen(rel string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sum, ok := r.sums[path.Clean(rel)]
	return sum, ok
}

// recordRead notes that the model was shown the file p (as the workspace
// displays it) whose whole content hashes to sha256Hex. read_file calls it
// after every successful text read, partial reads included: the hash is of
// the whole file. Tracking is best effort: without a tracker nothing is
// recorded, and write_file then asks for expected_sha256 instead.
func recordRead(ctx context.Context, tc tool.Context, p, sha256Hex string) {
	if rt, err := tool.Resolve(ctx, tc, ReadTrackerKey); err == nil {
		rt.Record(p, sha256Hex)
	}
}

// seenSum returns the hash recorded for rel, if any.
func seenSum(ctx context.Context, tc tool.Context, rel string) (string, bool) {
	rt, err := tool.Resolve(ctx, tc, ReadTrackerKey)
	if err != nil {
		return "", false
	}
	return rt.Seen(rel)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// hashFile returns the SHA-256 of the regular file rel, streamed.
func hashFile(ws *workspace.Workspace, rel string) (string, error) {
	f, err := ws.Open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", tool.Errorf(tool.CodeExecutionFailed, "read %s: %w", rel, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkOverwrite enforces read-before-overwrite: the model must have seen the
// content it is about to replace, through a read or a write of this toolkit,
// or name it by hash.
func checkOverwrite(ctx context.Context, tc tool.Context, rel, current, expected string) error {
	if expected != "" {
		if !strings.EqualFold(expected, current) {
			return changedError(rel, current, expected, "expected_sha256")
		}
		return nil
	}
	seen, ok := seenSum(ctx, tc, rel)
	switch {
	case !ok && tool.OneCallSession(ctx):
		// A read in another call is not one of this session's: only the
		// hash can name the content this call replaces.
		e := tool.Errorf(tool.CodeExecutionFailed, "%s already exists; this call is the only call of its session (a one-shot call), so no read_file of another call counts: pass expected_sha256 with the SHA-256 of its current content (sha256sum prints it), then write it again", rel)
		e.Retriable = true
		return e
	case !ok:
		e := tool.Errorf(tool.CodeExecutionFailed, "%s already exists and its content has not been read in this session; call read_file on it first (or pass expected_sha256 with the SHA-256 of its current content), then write it again", rel)
		e.Retriable = true
		return e
	case seen != current:
		return changedError(rel, current, seen, "the last read")
	}
	return nil
}

func changedError(rel, current, expected, source string) *tool.Error {
	e := tool.Errorf(tool.CodeExecutionFailed, "%s has changed since %s (its SHA-256 is now %s, not %s); read it again with read_file and redo the change on its current content", rel, source, current, expected)
	e.Retriable = true
	return e.WithDetail("current_sha256", current)
}
