package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/redistest"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/redisstore"
	"github.com/quiverkit/quiver/outputcache/storetest"
)

func newStore(t *testing.T, srv *redistest.Server, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	opts.URL = srv.URL()
	s, err := redisstore.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestContract holds the Redis store to every store's contract, with small
// chunks so that reads and greps cross chunk boundaries, over a Unix
// socket and over TCP.
func TestContract(t *testing.T) {
	for _, tcp := range []bool{false, true} {
		name := map[bool]string{false: "unix", true: "tcp"}[tcp]
		t.Run(name, func(t *testing.T) {
			srv := redistest.Start(t, tcp)
			storetest.Run(t, func(t *testing.T) outputcache.Store {
				// a prefix per case: one server, no case sees another's outputs
				return newStore(t, srv, redisstore.Options{ChunkBytes: 4099, Prefix: "t:" + t.Name() + ":"})
			})
		})
	}
}

// TestReplicasShareOutputs: what one store (replica) writes, another over
// the same Redis reads.
func TestReplicasShareOutputs(t *testing.T) {
	srv := redistest.Start(t, false)
	a := newStore(t, srv, redisstore.Options{ChunkBytes: 1000})
	b := newStore(t, srv, redisstore.Options{ChunkBytes: 1 << 20}) // configured differently: the output says its chunk size
	data := strings.Repeat("shared between replicas\n", 1000)
	ref := storetest.Put(t, a, data)
	if got := storetest.ReadAll(t, b, ref); got != data {
		t.Errorf("replica b read %d bytes, a wrote %d", len(got), len(data))
	}
}

func TestCapsOneOutputAndRecordsWhatItDropped(t *testing.T) {
	srv := redistest.Start(t, false)
	s := newStore(t, srv, redisstore.Options{MaxBytes: 1000, ChunkBytes: 300})
	ref := storetest.Put(t, s, strings.Repeat("z", 1500))
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.Size != 1000 || out.Dropped != 500 {
		t.Errorf("size %d, dropped %d; want 1000 and 500", out.Size, out.Dropped)
	}
}

// TestEvictsOldestFirst: past MaxBytes over all outputs, the oldest go
// first, and reading one says it was removed.
func TestEvictsOldestFirst(t *testing.T) {
	srv := redistest.Start(t, false)
	s := newStore(t, srv, redisstore.Options{MaxBytes: 10 << 10, ChunkBytes: 1000})
	chunk := strings.Repeat("x", 3<<10)
	var refs []string
	for range 4 {
		refs = append(refs, storetest.Put(t, s, chunk))
		time.Sleep(2 * time.Millisecond) // distinct creation times, which order eviction (not a timing assertion)
	}
	var kept []bool
	for _, r := range refs {
		out, err := s.Open(context.Background(), r)
		if err == nil {
			out.Close()
		} else if !errors.Is(err, outputcache.ErrNotFound) {
			t.Fatal(err)
		}
		kept = append(kept, err == nil)
	}
	if diff := cmp.Diff([]bool{false, true, true, true}, kept); diff != "" {
		t.Errorf("which outputs are kept (-want +got):\n%s", diff)
	}
}

// TestRedisDown: with Redis killed, every operation that needs it fails
// with ErrUnavailable — an open output read mid-way, a write, a seal, an
// open, a create — and no ref whose writer failed is readable once Redis
// is back; new outputs work again.
func TestRedisDown(t *testing.T) {
	srv := redistest.Start(t, false)
	s := newStore(t, srv, redisstore.Options{ChunkBytes: 1000})
	ctx := context.Background()
	ref := storetest.Put(t, s, strings.Repeat("kept before the crash\n", 500))
	out, err := s.Open(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w, err := s.Create(ctx, outputcache.Info{Tool: "exec_command"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(strings.Repeat("a", 1500))); err != nil {
		t.Fatal(err)
	}

	srv.Kill()
	if _, err := out.ReadLines(ctx, 400, 10, 1000); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("reading an open output with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := w.Write([]byte(strings.Repeat("b", 1500))); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("writing with Redis down: %v, want ErrUnavailable", err)
	}
	if err := w.Close(); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("sealing with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := s.Open(ctx, ref); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("open with Redis down: %v, want ErrUnavailable", err)
	}
	if _, err := s.Create(ctx, outputcache.Info{}); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("create with Redis down: %v, want ErrUnavailable", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, outputcache.ErrUnavailable) {
		t.Errorf("ping with Redis down: %v, want ErrUnavailable", err)
	}

	srv.Restart()
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after the restart: %v", err)
	}
	if _, err := s.Open(ctx, w.Ref()); !errors.Is(err, outputcache.ErrNotFound) {
		t.Errorf("the output whose writer failed: %v, want ErrNotFound", err)
	}
	if got := storetest.ReadAll(t, s, storetest.Put(t, s, "after the restart\n")); got != "after the restart\n" {
		t.Errorf("new output after the restart: %q", got)
	}
}

// TestMissingChunkIsDamage: a chunk Redis lost (an eviction policy other
// than noeviction) is reported as damage, never read as a shorter output.
func TestMissingChunkIsDamage(t *testing.T) {
	srv := redistest.Start(t, false)
	s := newStore(t, srv, redisstore.Options{ChunkBytes: 100, Prefix: "d:"})
	ref := storetest.Put(t, s, strings.Repeat("0123456789\n", 100))
	raw := newStore(t, srv, redisstore.Options{})
	if err := raw.DeleteKeyForTest(context.Background(), "d:out:"+ref+":c:3"); err != nil {
		t.Fatal(err)
	}
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := out.ReadLines(context.Background(), 30, 10, 1000); !errors.Is(err, outputcache.ErrDamaged) {
		t.Errorf("read across a lost chunk: %v, want ErrDamaged", err)
	}
}
