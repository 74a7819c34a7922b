package outputcache

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// MemoryOptions configures a [MemoryStore]. Zero fields take the defaults.
type MemoryOptions struct {
	// MaxBytes caps the bytes kept, in memory and spilled, over all outputs
	// (default 1 GiB). Oldest sealed outputs are evicted first; an output
	// that alone grows past it keeps its first MaxBytes and records the rest
	// as dropped.
	MaxBytes int64
	// MaxMemory caps the bytes kept in memory (default 64 MiB); past it the
	// oldest sealed outputs held in memory are evicted.
	MaxMemory int64
	// SpillAt is the size past which an output moves from memory to an
	// unlinked temporary file (default 1 MiB), so that a 1 GB output never
	// sits whole in memory. Negative: never spill.
	SpillAt int64
	// TempDir is where spilled outputs go (default os.TempDir()).
	TempDir string
}

func (o MemoryOptions) withDefaults() MemoryOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 1 << 30
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = 64 << 20
	}
	if o.SpillAt == 0 {
		o.SpillAt = 1 << 20
	}
	if o.SpillAt < 0 {
		o.SpillAt = o.MaxBytes
	}
	if o.TempDir == "" {
		o.TempDir = os.TempDir()
	}
	return o
}

// entryOverhead is what each output costs in the memory account beyond its
// bytes, so that a flood of empty outputs is evicted too.
const entryOverhead = 512

// MemoryStore keeps outputs for the life of the process: small ones in
// memory, large ones in temporary files that are unlinked at creation, so
// nothing is left behind when the process ends. It is the library's default
// store. Safe for concurrent use.
type MemoryStore struct {
	opts MemoryOptions

	mu      sync.Mutex
	entries map[string]*memEntry
	order   []*memEntry // creation order, for eviction
	total   int64       // bytes kept, memory and files
	inRAM   int64       // bytes kept in memory, plus overheads
}

type memEntry struct {
	meta    Meta
	sealed  bool
	buf     []byte   // the data while in memory
	file    *os.File // the data once spilled
	name    string   // the file's name if unlinking it at creation failed
	readers int
	evicted bool
}

// NewMemoryStore returns an empty memory store.
func NewMemoryStore(opts MemoryOptions) *MemoryStore {
	return &MemoryStore{opts: opts.withDefaults(), entries: map[string]*memEntry{}}
}

// Create starts a new output.
func (s *MemoryStore) Create(ctx context.Context, info Info) (Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("outputcache: create: %w", err)
	}
	e := &memEntry{meta: Meta{Ref: NewRef(), Tool: info.Tool, CallID: info.CallID, Created: time.Now()}}
	s.mu.Lock()
	s.entries[e.meta.Ref] = e
	s.order = append(s.order, e)
	s.inRAM += entryOverhead
	s.mu.Unlock()
	return &memWriter{s: s, e: e, info: info}, nil
}

// Open returns the sealed output ref.
func (s *MemoryStore) Open(ctx context.Context, ref string) (*Output, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[ref]
	switch {
	case e == nil:
		return nil, fmt.Errorf("%s: %w (this store lives in memory: the output may have been evicted to make room, or made by another process)", ref, ErrNotFound)
	case !e.sealed:
		return nil, fmt.Errorf("%s: %w", ref, ErrInProgress)
	}
	e.readers++
	var data io.ReaderAt = bytes.NewReader(e.buf)
	if e.file != nil {
		data = e.file
	}
	return NewOutput(e.meta, data, func() error { return s.release(e) }), nil
}

// release ends one reader of e, closing its file if e was evicted meanwhile.
func (s *MemoryStore) release(e *memEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.readers--
	if e.evicted && e.readers == 0 {
		return e.discard()
	}
	return nil
}

// discard closes e's file, if any, and removes it if it still has a name.
func (e *memEntry) discard() error {
	if e.file == nil {
		return nil
	}
	err := e.file.Close()
	if e.name != "" {
		if rerr := os.Remove(e.name); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// evict drops the oldest sealed outputs until the caps hold. Called with
// s.mu held.
func (s *MemoryStore) evict() {
	for i := 0; i < len(s.order) && (s.total > s.opts.MaxBytes || s.inRAM > s.opts.MaxMemory); {
		e := s.order[i]
		overMemory := s.total <= s.opts.MaxBytes
		if !e.sealed || (overMemory && e.file != nil) {
			i++
			continue
		}
		s.order = append(s.order[:i], s.order[i+1:]...)
		delete(s.entries, e.meta.Ref)
		s.total -= e.meta.Size
		s.inRAM -= entryOverhead
		if e.file == nil {
			s.inRAM -= e.meta.Size
		}
		e.evicted = true
		if e.readers == 0 {
			_ = e.discard() // a temporary file that will not close changes nothing for the caller
		}
		e.buf = nil
	}
}

// account records n more bytes for an output, in memory or in a file.
func (s *MemoryStore) account(n int64, inRAM bool) {
	s.mu.Lock()
	s.total += n
	if inRAM {
		s.inRAM += n
	}
	s.evict()
	s.mu.Unlock()
}

type memWriter struct {
	s    *MemoryStore
	e    *memEntry
	info Info

	mu     sync.Mutex
	idx    LineIndex
	closed bool
}

func (w *memWriter) Ref() string { return w.e.meta.Ref }

func (w *memWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, fmt.Errorf("outputcache: write to %s: %w", w.e.meta.Ref, os.ErrClosed)
	}
	keep, dropped := w.idx.Fit(p, w.s.opts.MaxBytes)
	w.e.meta.Dropped += dropped
	if len(keep) == 0 {
		return len(p), nil
	}
	if w.e.file == nil && w.idx.Size()+int64(len(keep)) > w.s.opts.SpillAt {
		if err := w.spill(); err != nil {
			return 0, err
		}
	}
	if w.e.file != nil {
		if _, err := w.e.file.Write(keep); err != nil {
			return 0, fmt.Errorf("outputcache: write to %s: %w", w.e.meta.Ref, err)
		}
	} else {
		w.e.buf = append(w.e.buf, keep...)
	}
	w.idx.Write(keep)
	w.s.account(int64(len(keep)), w.e.file == nil)
	return len(p), nil
}

// spill moves the output from memory to a temporary file, unlinked at once
// where the system allows it.
func (w *memWriter) spill() error {
	f, err := os.CreateTemp(w.s.opts.TempDir, "quiver-output-*")
	if err != nil {
		return fmt.Errorf("outputcache: spill %s to disk: %w", w.e.meta.Ref, err)
	}
	if err := os.Remove(f.Name()); err != nil {
		w.e.name = f.Name()
	}
	if _, err := f.Write(w.e.buf); err != nil {
		f.Close()
		return fmt.Errorf("outputcache: spill %s to disk: %w", w.e.meta.Ref, err)
	}
	w.s.mu.Lock()
	w.s.inRAM -= int64(len(w.e.buf))
	w.e.file, w.e.buf = f, nil
	w.s.mu.Unlock()
	return nil
}

func (w *memWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	meta := w.idx.Meta(w.e.meta.Ref, w.info)
	meta.Created, meta.Dropped = w.e.meta.Created, w.e.meta.Dropped
	w.s.mu.Lock()
	w.e.meta, w.e.sealed = meta, true
	w.s.evict()
	w.s.mu.Unlock()
	return nil
}
