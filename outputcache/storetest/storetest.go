// Package storetest holds every [outputcache.Store] to the contract the
// tools rely on, in the spirit of testing/slogtest: a store's own tests
// call [Run] with a function that makes a fresh store, and the stock
// stores and the Redis store all pass the same cases.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/outputcache"
)

// Run runs the contract's cases, each as a subtest with a store of its
// own from newStore.
func Run(t *testing.T, newStore func(t *testing.T) outputcache.Store) {
	cases := []struct {
		name string
		f    func(*testing.T, outputcache.Store)
	}{
		{"KeepsWhatWasWritten", keepsWhatWasWritten},
		{"RefusesBadRefs", refusesBadRefs},
		{"RefusesReadingAnOutputBeingWritten", refusesInProgress},
		{"ServesConcurrentWritersAndReaders", servesConcurrently},
		{"HonoursCancellation", honoursCancellation},
		{"ReadsAndGrepsDeepInALargeOutput", readsDeep},
		{"KeepsAnEmptyOutput", keepsEmpty},
		{"ClosesTwiceHarmlessly", closesTwice},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.f(t, newStore(t)) })
	}
}

// Put stores data as one output, written in uneven pieces as a command's
// output arrives, and returns its ref.
func Put(t testing.TB, s outputcache.Store, data string) string {
	t.Helper()
	w, err := s.Create(context.Background(), outputcache.Info{Tool: "test", CallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+len(rest)%9973)
		if _, err := io.WriteString(w, rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Ref()
}

// ReadAll returns the stored bytes of ref.
func ReadAll(t testing.TB, s outputcache.Store, ref string) string {
	t.Helper()
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	b, err := io.ReadAll(io.NewSectionReader(out, 0, out.Size))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var ignoreCreated = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Created" }, cmp.Ignore())

func keepsWhatWasWritten(t *testing.T, s outputcache.Store) {
	data := strings.Repeat("line of output\n", 300) + "last line without newline"
	ref := Put(t, s, data)
	if !outputcache.ValidRef(ref) {
		t.Fatalf("ref %q is not a valid ref", ref)
	}
	if got := ReadAll(t, s, ref); got != data {
		t.Errorf("stored %d bytes, read back %d that differ", len(data), len(got))
	}
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	want := outputcache.Meta{Ref: ref, Tool: "test", CallID: "call_1", Size: int64(len(data)), Lines: 301,
		IndexEvery: outputcache.IndexEvery, Index: []int64{0}}
	if diff := cmp.Diff(want, out.Meta, ignoreCreated); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	if out.Created.IsZero() {
		t.Error("meta has no creation time")
	}
}

func refusesBadRefs(t *testing.T, s outputcache.Store) {
	cases := []struct {
		ref  string
		want error
	}{
		{"../../etc/passwd", outputcache.ErrMalformedRef},
		{"/etc/passwd", outputcache.ErrMalformedRef},
		{"out_aaaaaaaaaaaaaaaaaaaaaaaaaa/../../x", outputcache.ErrMalformedRef},
		{"out_AAAAAAAAAAAAAAAAAAAAAAAAAA", outputcache.ErrMalformedRef},
		{"", outputcache.ErrMalformedRef},
		{"out_aaaaaaaaaaaaaaaaaaaaaaaaa\x00", outputcache.ErrMalformedRef},
		{"out_aaaaaaaaaaaaaaaaaaaaaaaa*", outputcache.ErrMalformedRef}, // a pattern, to a store that matches keys
		{"out_aaaaaaaaaaaaaaaaaaaaaaaaaa", outputcache.ErrNotFound},
	}
	for _, c := range cases {
		out, err := s.Open(context.Background(), c.ref)
		if !errors.Is(err, c.want) {
			t.Errorf("Open(%q) = %v, %v; want %v", c.ref, out, err, c.want)
		}
	}
}

func refusesInProgress(t *testing.T, s outputcache.Store) {
	w, err := s.Create(context.Background(), outputcache.Info{Tool: "a_command_tool"})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "partial\n")
	if _, err := s.Open(context.Background(), w.Ref()); !errors.Is(err, outputcache.ErrInProgress) {
		t.Errorf("Open before Close: err = %v, want ErrInProgress", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("late")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close: err = %v, want os.ErrClosed", err)
	}
	if got := ReadAll(t, s, w.Ref()); got != "partial\n" {
		t.Errorf("read %q, want %q", got, "partial\n")
	}
}

func servesConcurrently(t *testing.T, s outputcache.Store) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() { errs <- writeAndReadBack(s, i) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// writeAndReadBack writes one output from two goroutines sharing the writer
// (stdout and stderr), polls it while it is written, then reads it back.
func writeAndReadBack(s outputcache.Store, i int) error {
	ctx := context.Background()
	w, err := s.Create(ctx, outputcache.Info{Tool: "a_command_tool", CallID: "same-id"})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for stream := range 2 {
		wg.Go(func() {
			for j := range 200 {
				fmt.Fprintf(w, "writer %d stream %d line %d\n", i, stream, j)
			}
		})
	}
	for range 20 {
		if out, err := s.Open(ctx, w.Ref()); err == nil {
			out.Close()
			return fmt.Errorf("opened %s while it was written", w.Ref())
		}
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		return err
	}
	out, err := s.Open(ctx, w.Ref())
	if err != nil {
		return err
	}
	defer out.Close()
	if out.Lines != 400 {
		return fmt.Errorf("%s: %d lines, want 400", w.Ref(), out.Lines)
	}
	page, err := out.ReadLines(ctx, 390, 20, 64<<10)
	if err != nil || len(page.Lines) != 11 {
		return fmt.Errorf("%s: read 390-400: %d lines, %v", w.Ref(), len(page.Lines), err)
	}
	return nil
}

func honoursCancellation(t *testing.T, s outputcache.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Create(ctx, outputcache.Info{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Create with a cancelled context: %v", err)
	}
}

// readsDeep stores an output of a few index intervals and more than a
// megabyte (past a chunked store's chunk), then reads and greps its far
// end as the tools do.
func readsDeep(t *testing.T, s outputcache.Store) {
	const lines = 3*outputcache.IndexEvery + 17
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "line %d of the output %s\n", i, strings.Repeat("x", i%300))
	}
	ref := Put(t, s, b.String())
	ctx := context.Background()
	out, err := s.Open(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.Lines != lines || len(out.Index) != 4 {
		t.Fatalf("%d lines, index of %d; want %d and 4", out.Lines, len(out.Index), lines)
	}
	page, err := out.ReadLines(ctx, lines-99, 100, 1<<20)
	if err != nil || len(page.Lines) != 100 || !strings.HasPrefix(page.Lines[0].Text, fmt.Sprintf("line %d of", lines-99)) || page.Next != 0 {
		t.Fatalf("read the last 100 lines: %d lines, next %d, %v", len(page.Lines), page.Next, err)
	}
	res, err := out.Grep(ctx, outputcache.GrepOptions{Pattern: fmt.Sprintf("line %d of", 2*outputcache.IndexEvery+5), Before: 1})
	if err != nil || res.Matches != 1 || len(res.Groups) != 1 || len(res.Groups[0]) != 2 || res.Groups[0][1].N != 2*outputcache.IndexEvery+5 {
		t.Fatalf("grep: %+v, %v", res, err)
	}
	if _, err := out.ReadLines(ctx, lines+1, 1, 100); !errors.Is(err, outputcache.ErrPastEnd) {
		t.Errorf("read past the end: %v, want ErrPastEnd", err)
	}
}

func keepsEmpty(t *testing.T, s outputcache.Store) {
	ref := Put(t, s, "")
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	page, err := out.ReadLines(context.Background(), 1, 10, 100)
	if out.Size != 0 || out.Lines != 0 || err != nil || len(page.Lines) != 0 {
		t.Errorf("empty output: size %d, lines %d, page %+v, %v", out.Size, out.Lines, page, err)
	}
}

func closesTwice(t *testing.T, s outputcache.Store) {
	w, err := s.Create(context.Background(), outputcache.Info{})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "once\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close of a writer: %v", err)
	}
	out, err := s.Open(context.Background(), w.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Errorf("second Close of an output: %v", err)
	}
}
