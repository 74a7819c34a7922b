package outputcache

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DirOptions configures a [DirStore]. Zero fields take the defaults.
type DirOptions struct {
	// Dir holds the outputs (default [DefaultDir]).
	Dir string
	// MaxBytes caps the bytes kept over all outputs (default 2 GiB); the
	// oldest are removed first. An output that alone grows past it keeps
	// its first MaxBytes and records the rest as dropped.
	MaxBytes int64
	// MaxAge is how long an output is kept (default 72 hours).
	MaxAge time.Duration
	// MaxOutputs caps how many outputs are kept; the oldest are removed
	// first. 0 sets no cap.
	MaxOutputs int
}

func (o DirOptions) withDefaults() (DirOptions, error) {
	if o.Dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return o, err
		}
		o.Dir = d
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2 << 30
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 72 * time.Hour
	}
	return o, nil
}

// DefaultDir returns $XDG_CACHE_HOME/quiver/outputs, or ~/.cache/quiver/outputs
// where XDG_CACHE_HOME is unset (the platform's cache directory elsewhere).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("outputcache: no cache directory: %w", err)
	}
	return filepath.Join(d, "quiver", "outputs"), nil
}

// The files of one output: REF.out holds the bytes, REF.idx its Meta as
// JSON. The .idx file is written last, by rename, so its presence means the
// output is sealed; an .out without one is being written, or was abandoned.
const (
	dataSuffix = ".out"
	metaSuffix = ".idx"
	// abandonedAfter is when an .out without an .idx, not written to since,
	// counts as abandoned by a writer that died.
	abandonedAfter = time.Hour
)

// DirStore keeps outputs in a directory, so that they outlive the process:
// a later `quiver call tool_output_cache` reads a ref an earlier one made.
// It is the CLI's and the server's default store. Files are private to the
// user (0600 in a 0700 directory). Several processes may share one
// directory. Safe for concurrent use.
type DirStore struct {
	opts DirOptions

	mu      sync.Mutex
	writing map[string]bool // refs this process is writing
}

// NewDirStore opens (creating it if need be) the store's directory and
// removes what is past the caps.
func NewDirStore(opts DirOptions) (*DirStore, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("outputcache: %w", err)
	}
	// No prune here: every process that only reads (a `quiver call
	// tool_output_cache`) would stat the whole directory first. The caps are
	// enforced when an output is added (dirWriter.Close), the one time the
	// store grows.
	return &DirStore{opts: opts, writing: map[string]bool{}}, nil
}

// Dir returns the store's directory.
func (s *DirStore) Dir() string { return s.opts.Dir }

// File returns the file that holds the bytes of output ref, for a host
// that reads them itself: the whole output, up to MaxBytes. It is removed
// with the output.
func (s *DirStore) File(ref string) string { return s.path(ref, dataSuffix) }

func (s *DirStore) path(ref, suffix string) string {
	return filepath.Join(s.opts.Dir, ref+suffix)
}

// Create starts a new output. The directory is made again if it was removed
// underneath the store.
func (s *DirStore) Create(ctx context.Context, info Info) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("outputcache: create: %w", err)
	}
	if err := os.MkdirAll(s.opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("outputcache: %w", err)
	}
	ref := NewRef()
	f, err := os.OpenFile(s.path(ref, dataSuffix), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("outputcache: create %s: %w", ref, err)
	}
	s.mu.Lock()
	s.writing[ref] = true
	s.mu.Unlock()
	return &dirWriter{s: s, ref: ref, info: info, f: f, bw: bufio.NewWriterSize(f, 256<<10), created: time.Now()}, nil
}

// Open returns the sealed output ref.
func (s *DirStore) Open(ctx context.Context, ref string) (*Output, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	s.mu.Lock()
	writing := s.writing[ref]
	s.mu.Unlock()
	if writing {
		return nil, fmt.Errorf("%s: %w", ref, ErrInProgress)
	}
	raw, err := os.ReadFile(s.path(ref, metaSuffix))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(s.path(ref, dataSuffix)); serr == nil {
			return nil, fmt.Errorf("%s: %w (by another process), or its writer stopped before finishing", ref, ErrInProgress)
		}
		return nil, fmt.Errorf("%s: %w (it may have expired or been removed)", ref, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("outputcache: open %s: %w", ref, err)
	}
	var meta Meta
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Ref != ref || len(meta.Index) == 0 {
		return nil, fmt.Errorf("%s: %w: its index file does not parse", ref, ErrDamaged)
	}
	f, err := os.Open(s.path(ref, dataSuffix))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (its data file was removed)", ref, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("outputcache: open %s: %w", ref, err)
	}
	if st, err := f.Stat(); err != nil || st.Size() < meta.Size {
		f.Close()
		return nil, fmt.Errorf("%s: %w: its data file is shorter than recorded", ref, ErrDamaged)
	}
	return NewOutput(meta, f, f.Close), nil
}

type dirWriter struct {
	s       *DirStore
	ref     string
	info    Info
	created time.Time

	mu      sync.Mutex
	f       *os.File
	bw      *bufio.Writer
	idx     LineIndex
	dropped int64
	err     error // the first write error; Close reports it
	closed  bool
}

func (w *dirWriter) Ref() string { return w.ref }

func (w *dirWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, fmt.Errorf("outputcache: write to %s: %w", w.ref, os.ErrClosed)
	}
	if w.err != nil {
		return 0, w.err
	}
	keep, dropped := w.idx.Fit(p, w.s.opts.MaxBytes)
	w.dropped += dropped
	n, err := w.bw.Write(keep)
	w.idx.Write(keep[:n])
	if err != nil {
		w.err = fmt.Errorf("outputcache: write to %s: %w", w.ref, err)
		return n, w.err
	}
	return len(p), nil
}

// Close flushes the data, then writes the index file by rename: the output
// is sealed, for this process and any other, at that instant.
func (w *dirWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	defer func() {
		w.s.mu.Lock()
		delete(w.s.writing, w.ref)
		w.s.mu.Unlock()
	}()
	err := w.err
	if ferr := w.bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("outputcache: write to %s: %w", w.ref, ferr)
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("outputcache: close %s: %w", w.ref, cerr)
	}
	if err != nil {
		os.Remove(w.s.path(w.ref, dataSuffix))
		return err
	}
	meta := w.idx.Meta(w.ref, w.info)
	meta.Created, meta.Dropped = w.created, w.dropped
	if err := w.s.writeMeta(meta); err != nil {
		return err
	}
	return w.s.Prune()
}

// writeMeta writes REF.idx through a temporary file and a rename.
func (s *DirStore) writeMeta(meta Meta) error {
	raw, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("outputcache: index of %s: %w", meta.Ref, err)
	}
	tmp, err := os.CreateTemp(s.opts.Dir, meta.Ref+metaSuffix+".*.tmp")
	if err != nil {
		return fmt.Errorf("outputcache: index of %s: %w", meta.Ref, err)
	}
	_, err = tmp.Write(raw)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path(meta.Ref, metaSuffix))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("outputcache: index of %s: %w", meta.Ref, err)
	}
	return nil
}

// Prune removes outputs older than MaxAge, then the oldest until the total
// is within MaxBytes and their number within MaxOutputs, and files left by
// writers that died. Create and Close
// call it; hosts need not. Files that vanish meanwhile (another process
// pruning the same directory) are not an error.
func (s *DirStore) Prune() error {
	entries, err := os.ReadDir(s.opts.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("outputcache: prune: %w", err)
	}
	type sealed struct {
		ref  string
		mod  time.Time
		size int64
	}
	var kept []sealed
	var total int64
	now := time.Now()
	for _, de := range entries {
		name := de.Name()
		info, err := de.Info()
		if err != nil {
			continue
		}
		ref, suffix, _ := strings.Cut(name, ".")
		switch {
		case !ValidRef(ref):
			continue
		case "."+suffix == metaSuffix:
			data, err := os.Stat(s.path(ref, dataSuffix))
			if err != nil || now.Sub(info.ModTime()) > s.opts.MaxAge {
				s.remove(ref)
				continue
			}
			kept = append(kept, sealed{ref, info.ModTime(), data.Size()})
			total += data.Size()
		case now.Sub(info.ModTime()) > abandonedAfter && !s.isWriting(ref) && !s.sealedOnDisk(ref, name):
			os.Remove(filepath.Join(s.opts.Dir, name))
		}
	}
	slices.SortFunc(kept, func(a, b sealed) int { return a.mod.Compare(b.mod) })
	over := func(i int) bool {
		return total > s.opts.MaxBytes || s.opts.MaxOutputs > 0 && len(kept)-i > s.opts.MaxOutputs
	}
	for i := 0; over(i) && i < len(kept); i++ {
		s.remove(kept[i].ref)
		total -= kept[i].size
	}
	return nil
}

func (s *DirStore) isWriting(ref string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writing[ref]
}

// sealedOnDisk reports whether name is the data file of a sealed output.
func (s *DirStore) sealedOnDisk(ref, name string) bool {
	if name != ref+dataSuffix {
		return false
	}
	_, err := os.Stat(s.path(ref, metaSuffix))
	return err == nil
}

// remove deletes an output: its index first, so that a reader sees "not
// found" rather than a damaged output.
func (s *DirStore) remove(ref string) {
	os.Remove(s.path(ref, metaSuffix))
	os.Remove(s.path(ref, dataSuffix))
}
