// Package redisstore is an [outputcache.Store] kept in Redis (or Valkey,
// which speaks the same protocol), so that several `quiver serve --http`
// replicas behind one load balancer read and search every ref any of them
// made.
//
// # Layout
//
// An output is kept in chunks of Options.ChunkBytes under
// PREFIX out:REF:c:N, written as the output streams in: a writer holds one
// chunk, a reader one read (the tools' read window, at most a few chunks
// at once), so that neither ever holds a large output whole. Its [Meta]
// (with the sparse line index) is written last, under PREFIX out:REF:m, in
// the same transaction that records the output for the size cap: the
// output is sealed, for every replica, at that instant. While it is
// written, PREFIX out:REF:w says so, and Open answers
// [outputcache.ErrInProgress].
//
// # Caps and expiry
//
// Every key expires MaxAge after its output was sealed (a writer that died
// leaves keys that expire MaxAge after they were written). The outputs'
// total size is kept under MaxBytes by evicting the oldest sealed outputs
// when an output is sealed (a sorted set of refs by creation time, a hash
// of their sizes, a running total); one output past MaxBytes keeps its
// first MaxBytes and records the rest as dropped, as the other stores do.
//
// # Failures, and refs never lost silently
//
// A ref is given out only when its writer's Close returned nil, and Close
// returns nil only after every chunk was stored and their expiry set: a
// write that fails (Redis down, or refusing writes when full) fails the
// Close, so the ref is never shown, rather than a later read finding it
// missing. What can still remove an output is its expiry, the size cap
// (both say "not found: expired or removed") and Redis itself: a Redis
// whose maxmemory-policy evicts keys may drop a chunk, which a reader
// finds missing and reports as [outputcache.ErrDamaged]. Run Redis with
// maxmemory-policy noeviction (docs/deploy.md), and with persistence if
// refs should outlive its restarts. Every error of reaching Redis wraps
// [outputcache.ErrUnavailable].
//
// # Plans
//
// The store also keeps what else a replica holds of a session that another
// would need: write_todos's plan of each session ([Store.Plans]), under
// PREFIX todos:SESSION.
//
// The store uses single-key commands and MULTI on keys of one output with
// the shared bookkeeping keys, so it needs one Redis (or a primary with
// replicas), not a Redis Cluster.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/quiverkit/quiver/outputcache"
)

// Meta is outputcache.Meta, named here for the package doc's links.
type Meta = outputcache.Meta

// Options configures a [Store]. Zero fields take the defaults.
type Options struct {
	// URL is the Redis to use: redis://[user:password@]host:port[/db],
	// rediss:// for TLS, or unix:///path/to/redis.sock[?db=N].
	URL string
	// Prefix starts every key (default "quiver:").
	Prefix string
	// MaxBytes caps the bytes kept over all outputs (default 2 GiB), as
	// the dir store's MaxBytes.
	MaxBytes int64
	// MaxAge is how long an output is kept (default 72 hours).
	MaxAge time.Duration
	// ChunkBytes is the size of one stored chunk (default 1 MiB): what a
	// writer buffers, and the unit a reader fetches.
	ChunkBytes int
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = "quiver:"
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 2 << 30
	}
	if o.MaxAge <= 0 {
		o.MaxAge = 72 * time.Hour
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 1 << 20
	}
	return o
}

// Store keeps outputs in Redis. Safe for concurrent use, by any number of
// processes sharing one Redis.
type Store struct {
	opts Options
	rdb  *redis.Client
}

// New returns a store over the Redis at opts.URL. It does not connect:
// the first call does, and [Store.Ping] says whether Redis answers.
func New(opts Options) (*Store, error) {
	opts = opts.withDefaults()
	ro, err := redis.ParseURL(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("outputcache: redis URL %s: %w", Redacted(opts.URL), err)
	}
	// Fail fast rather than queue calls behind a Redis that is gone: a
	// call that needs it answers STORE_UNAVAILABLE within seconds.
	ro.MaxRetries = 1
	ro.DialTimeout = 2 * time.Second
	ro.ReadTimeout = 5 * time.Second
	ro.WriteTimeout = 5 * time.Second
	ro.PoolTimeout = 5 * time.Second
	return &Store{opts: opts, rdb: redis.NewClient(ro)}, nil
}

// Redacted is raw with any password replaced by "xxxxx", for messages.
func Redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// Ping checks that Redis answers: the server's readiness check.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return s.unavailable("ping", err)
	}
	return nil
}

// EvictionPolicy returns Redis's maxmemory-policy, for a warning when it
// may evict the store's keys; "" when the server does not say (a managed
// Redis may refuse CONFIG).
func (s *Store) EvictionPolicy(ctx context.Context) string {
	v, err := s.rdb.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		return ""
	}
	return v["maxmemory-policy"]
}

// Close closes the connections.
func (s *Store) Close() error { return s.rdb.Close() }

// unavailable wraps err, an error of reaching Redis, with ErrUnavailable;
// the end of the caller's context stays what it is.
func (s *Store) unavailable(op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("outputcache: redis %s: %w", op, err)
	}
	return fmt.Errorf("outputcache: redis %s: %w: %w", op, outputcache.ErrUnavailable, err)
}

func (s *Store) key(ref, kind string) string { return s.opts.Prefix + "out:" + ref + ":" + kind }

func (s *Store) chunkKey(ref string, n int) string {
	return s.opts.Prefix + "out:" + ref + ":c:" + strconv.Itoa(n)
}

// The bookkeeping keys of the size cap.
func (s *Store) refsKey() string  { return s.opts.Prefix + "outs" }
func (s *Store) sizesKey() string { return s.opts.Prefix + "sizes" }
func (s *Store) totalKey() string { return s.opts.Prefix + "bytes" }

// sealed is what PREFIX out:REF:m holds: the Meta, and the chunk size it
// was written with (replicas may be configured differently).
type sealed struct {
	outputcache.Meta
	ChunkBytes int `json:"chunk_bytes"`
}

// Create starts a new output; it fails when Redis cannot be reached.
func (s *Store) Create(ctx context.Context, info outputcache.Info) (outputcache.Writer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("outputcache: create: %w", err)
	}
	ref := outputcache.NewRef()
	if err := s.rdb.Set(ctx, s.key(ref, "w"), "1", s.opts.MaxAge).Err(); err != nil {
		return nil, s.unavailable("create "+ref, err)
	}
	return &writer{s: s, ctx: context.WithoutCancel(ctx), ref: ref, info: info, created: time.Now(),
		buf: make([]byte, 0, s.opts.ChunkBytes)}, nil
}

// Open returns the sealed output ref. Its bytes stay in Redis: each read
// fetches the chunks it covers.
func (s *Store) Open(ctx context.Context, ref string) (*outputcache.Output, error) {
	if !outputcache.ValidRef(ref) {
		return nil, fmt.Errorf("%.80q: %w (ref ids look like out_ followed by 26 letters and digits)", ref, outputcache.ErrMalformedRef)
	}
	raw, err := s.rdb.Get(ctx, s.key(ref, "m")).Bytes()
	if errors.Is(err, redis.Nil) {
		n, err := s.rdb.Exists(ctx, s.key(ref, "w")).Result()
		switch {
		case err != nil:
			return nil, s.unavailable("open "+ref, err)
		case n > 0:
			return nil, fmt.Errorf("%s: %w (perhaps by another replica), or its writer stopped before finishing", ref, outputcache.ErrInProgress)
		}
		return nil, fmt.Errorf("%s: %w (it may have expired or been removed)", ref, outputcache.ErrNotFound)
	}
	if err != nil {
		return nil, s.unavailable("open "+ref, err)
	}
	var m sealed
	if err := json.Unmarshal(raw, &m); err != nil || m.Ref != ref || len(m.Index) == 0 || m.ChunkBytes <= 0 {
		return nil, fmt.Errorf("%s: %w: its meta does not parse", ref, outputcache.ErrDamaged)
	}
	return outputcache.NewOutput(m.Meta, &reader{s: s, ref: ref, chunk: int64(m.ChunkBytes)}, nil), nil
}

// reader reads a sealed output's bytes from its chunks.
type reader struct {
	s     *Store
	ref   string
	chunk int64
}

// readBatch is how many chunks one round trip fetches at most, so that a
// large read holds at most that many chunks' replies beside its buffer.
const readBatch = 4

// ReadAt fills p from the chunks that hold [off, off+len(p)), readBatch
// chunks a round trip. Output.ReadAt never asks past the output's size, so
// a chunk shorter than asked for is one Redis lost.
func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	ctx := context.Background()
	done := 0
	for done < len(p) {
		pipe := r.s.rdb.Pipeline()
		var cmds []*redis.StringCmd
		var wants []int
		for planned := done; planned < len(p) && len(cmds) < readBatch; {
			pos := off + int64(planned)
			n, start := pos/r.chunk, pos%r.chunk
			want := int(min(int64(len(p)-planned), r.chunk-start))
			cmds = append(cmds, pipe.GetRange(ctx, r.s.chunkKey(r.ref, int(n)), start, start+int64(want)-1))
			wants = append(wants, want)
			planned += want
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return done, r.s.unavailable("read "+r.ref, err)
		}
		for i, c := range cmds {
			got := c.Val()
			copy(p[done:], got)
			if len(got) < wants[i] {
				return done + len(got), fmt.Errorf("%s: %w: a chunk at byte %d is missing or short (expired, or evicted by Redis: the store needs maxmemory-policy noeviction)",
					r.ref, outputcache.ErrDamaged, off+int64(done))
			}
			done += wants[i]
		}
	}
	return done, nil
}

type writer struct {
	s       *Store
	ctx     context.Context // the creating call's values, never its cancellation: Close must finish
	ref     string
	info    outputcache.Info
	created time.Time

	mu      sync.Mutex
	buf     []byte // the chunk being filled
	chunks  int    // chunks stored
	idx     outputcache.LineIndex
	dropped int64
	err     error // the first failure; Close reports it
	closed  bool
}

func (w *writer) Ref() string { return w.ref }

// Write stores p, a chunk at a time. A write Redis refuses fails this and
// every later Write, and Close then removes what was stored.
func (w *writer) Write(p []byte) (int, error) {
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
	w.idx.Write(keep)
	for len(keep) > 0 {
		n := min(len(keep), cap(w.buf)-len(w.buf))
		w.buf = append(w.buf, keep[:n]...)
		keep = keep[n:]
		if len(w.buf) == cap(w.buf) {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// flush stores the chunk being filled. Called with w.mu held.
func (w *writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if err := w.s.rdb.Set(w.ctx, w.s.chunkKey(w.ref, w.chunks), w.buf, w.s.opts.MaxAge).Err(); err != nil {
		w.err = w.s.unavailable("write to "+w.ref, err)
		return w.err
	}
	w.chunks++
	w.buf = w.buf[:0]
	return nil
}

// Close stores the last chunk, sets every chunk's expiry to the output's
// (so none expires before its meta), then seals the output. It fails, and
// removes what was stored, if any of that fails: the ref was not kept.
func (w *writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.err
	if err == nil {
		err = w.flush()
	}
	if err == nil {
		err = w.seal()
	}
	w.buf = nil
	if err != nil {
		w.s.discard(w.ref, w.chunks)
		return err
	}
	w.s.prune(w.ctx)
	return nil
}

// seal makes the output readable: chunk expiries, then, in one
// transaction, its meta, the end of its writing mark and its entry in the
// size cap's books.
func (w *writer) seal() error {
	ctx := w.ctx
	ttl := w.s.opts.MaxAge + time.Minute // the chunks outlive the meta
	for from := 0; from < w.chunks; from += 1000 {
		pipe := w.s.rdb.Pipeline()
		var cmds []*redis.BoolCmd
		for n := from; n < min(from+1000, w.chunks); n++ {
			cmds = append(cmds, pipe.Expire(ctx, w.s.chunkKey(w.ref, n), ttl))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return w.s.unavailable("seal "+w.ref, err)
		}
		for i, c := range cmds {
			if !c.Val() {
				return fmt.Errorf("outputcache: seal %s: %w: chunk %d vanished while the output was written (evicted by Redis?)",
					w.ref, outputcache.ErrDamaged, from+i)
			}
		}
	}
	meta := w.idx.Meta(w.ref, w.info)
	meta.Created, meta.Dropped = w.created, w.dropped
	raw, err := json.Marshal(sealed{Meta: meta, ChunkBytes: cap(w.buf)})
	if err != nil {
		return fmt.Errorf("outputcache: meta of %s: %w", w.ref, err)
	}
	_, err = w.s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, w.s.key(w.ref, "m"), raw, w.s.opts.MaxAge)
		p.Del(ctx, w.s.key(w.ref, "w"))
		p.ZAdd(ctx, w.s.refsKey(), redis.Z{Score: float64(w.created.UnixMilli()), Member: w.ref})
		p.HSet(ctx, w.s.sizesKey(), w.ref, strconv.FormatInt(meta.Size, 10)+"/"+strconv.Itoa(cap(w.buf)))
		p.IncrBy(ctx, w.s.totalKey(), meta.Size)
		return nil
	})
	if err != nil {
		return w.s.unavailable("seal "+w.ref, err)
	}
	return nil
}

// discard removes an output's keys, best effort: what it cannot remove
// expires.
func (s *Store) discard(ref string, chunks int) {
	ctx := context.Background()
	keys := []string{s.key(ref, "m"), s.key(ref, "w")}
	for n := range chunks {
		keys = append(keys, s.chunkKey(ref, n))
		if len(keys) == 1000 {
			s.rdb.Unlink(ctx, keys...)
			keys = keys[:0]
		}
	}
	if len(keys) > 0 {
		s.rdb.Unlink(ctx, keys...)
	}
}

// prune removes the outputs past MaxAge from the books, then the oldest
// until the total is within MaxBytes. Every replica prunes; ZREM and
// ZPOPMIN give each output to one of them. Best effort: an output a prune
// misses expires, and the next seal prunes again.
func (s *Store) prune(ctx context.Context) {
	cutoff := time.Now().Add(-s.opts.MaxAge).UnixMilli()
	old, _ := s.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: s.refsKey(), ByScore: true, Start: "-inf", Stop: strconv.FormatInt(cutoff, 10), Count: 1000}).Result()
	for _, ref := range old {
		if n, _ := s.rdb.ZRem(ctx, s.refsKey(), ref).Result(); n == 1 {
			s.drop(ctx, ref)
		}
	}
	for range 10000 {
		total, err := s.rdb.Get(ctx, s.totalKey()).Int64()
		if err != nil || total <= s.opts.MaxBytes {
			return
		}
		zs, err := s.rdb.ZPopMin(ctx, s.refsKey(), 1).Result()
		if err != nil || len(zs) == 0 {
			return
		}
		s.drop(ctx, zs[0].Member.(string))
	}
}

// drop removes an output taken off the books: its meta first, so that a
// reader sees "not found" rather than a damaged output.
func (s *Store) drop(ctx context.Context, ref string) {
	v, _ := s.rdb.HGet(ctx, s.sizesKey(), ref).Result()
	s.rdb.HDel(ctx, s.sizesKey(), ref)
	size, chunk := parseSize(v)
	if size > 0 {
		s.rdb.DecrBy(ctx, s.totalKey(), size)
	}
	s.rdb.Unlink(ctx, s.key(ref, "m"))
	chunks := 0
	if chunk > 0 {
		chunks = int((size + chunk - 1) / chunk)
	}
	s.discard(ref, chunks)
}

// parseSize reads a sizes entry, "SIZE/CHUNK".
func parseSize(v string) (size, chunk int64) {
	for i := range len(v) {
		if v[i] == '/' {
			size, _ = strconv.ParseInt(v[:i], 10, 64)
			chunk, _ = strconv.ParseInt(v[i+1:], 10, 64)
			return size, chunk
		}
	}
	return 0, 0
}
