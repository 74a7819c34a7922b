package outputcache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// put stores data as one output and returns its ref.
func put(t testing.TB, s Store, data string) string {
	t.Helper()
	w, err := s.Create(context.Background(), Info{Tool: "test", CallID: "call_1"})
	if err != nil {
		t.Fatal(err)
	}
	// write in uneven pieces, as a command's output arrives
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+len(rest)%97)
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

// readAll returns the stored bytes of ref.
func readAll(t testing.TB, s Store, ref string) string {
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

func TestRefsAreUniqueAndWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		r := NewRef()
		if !ValidRef(r) || seen[r] {
			t.Fatalf("NewRef() = %q: valid %v, seen before %v", r, ValidRef(r), seen[r])
		}
		seen[r] = true
	}
}

func TestMemoryStoreEvictsOldestFirst(t *testing.T) {
	s := NewMemoryStore(MemoryOptions{MaxBytes: 10 << 10, MaxMemory: 1 << 30})
	chunk := strings.Repeat("x", 3<<10)
	refs := []string{put(t, s, chunk), put(t, s, chunk), put(t, s, chunk), put(t, s, chunk)}
	var got []bool
	for _, r := range refs {
		out, err := s.Open(context.Background(), r)
		if err == nil {
			out.Close()
		} else if !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		got = append(got, err == nil)
	}
	if diff := cmp.Diff([]bool{false, true, true, true}, got); diff != "" {
		t.Errorf("which outputs are kept (-want +got):\n%s", diff)
	}
}

func TestMemoryStoreKeepsEvictedOutputsReadableForOpenReaders(t *testing.T) {
	s := NewMemoryStore(MemoryOptions{MaxBytes: 4 << 10, SpillAt: 16, TempDir: t.TempDir()})
	data := strings.Repeat("y", 3<<10)
	ref := put(t, s, data)
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, data) // evicts ref while out is open
	b, err := io.ReadAll(io.NewSectionReader(out, 0, out.Size))
	if err != nil || string(b) != data {
		t.Errorf("reading an evicted output still open: %d bytes, %v", len(b), err)
	}
	if err := out.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := s.Open(context.Background(), ref); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open after eviction: %v, want ErrNotFound", err)
	}
}

func TestStoresCapOneOutputAndRecordWhatTheyDropped(t *testing.T) {
	mem := NewMemoryStore(MemoryOptions{MaxBytes: 1000, SpillAt: -1})
	dir, err := NewDirStore(DirOptions{Dir: t.TempDir(), MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]Store{"memory": mem, "dir": dir} {
		t.Run(name, func(t *testing.T) {
			ref := put(t, s, strings.Repeat("z", 1500))
			out, err := s.Open(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			if out.Size != 1000 || out.Dropped != 500 {
				t.Errorf("size %d, dropped %d; want 1000 and 500", out.Size, out.Dropped)
			}
		})
	}
}

func TestDirStoreOutputsOutliveTheStore(t *testing.T) {
	dir := t.TempDir()
	first, err := NewDirStore(DirOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ref := put(t, first, "kept across processes\n")
	second, err := NewDirStore(DirOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, second, ref); got != "kept across processes\n" {
		t.Errorf("second store read %q", got)
	}
}

func TestDirStoreFilesAreMadePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outputs")
	s, err := NewDirStore(DirOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ref := put(t, s, "secret\n")
	for _, p := range []string{dir, filepath.Join(dir, ref+dataSuffix), filepath.Join(dir, ref+metaSuffix)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, readable by others", p, st.Mode().Perm())
		}
	}
}

func TestDirStoreFilesDeletedUnderneath(t *testing.T) {
	cases := []struct {
		name   string
		damage func(dir, ref string) error
		want   error
	}{
		{"index removed", func(dir, ref string) error { return os.Remove(filepath.Join(dir, ref+metaSuffix)) }, ErrInProgress},
		{"data removed", func(dir, ref string) error { return os.Remove(filepath.Join(dir, ref+dataSuffix)) }, ErrNotFound},
		{"both removed", func(dir, ref string) error { return os.RemoveAll(dir) }, ErrNotFound},
		{"data truncated", func(dir, ref string) error { return os.Truncate(filepath.Join(dir, ref+dataSuffix), 3) }, ErrDamaged},
		{"index garbled", func(dir, ref string) error {
			return os.WriteFile(filepath.Join(dir, ref+metaSuffix), []byte("{not json"), 0o600)
		}, ErrDamaged},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := NewDirStore(DirOptions{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			ref := put(t, s, "some output\nmore\n")
			if err := c.damage(dir, ref); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Open(context.Background(), ref); !errors.Is(err, c.want) {
				t.Errorf("Open: %v, want %v", err, c.want)
			}
			// the store keeps working: a new output is made, directory and all
			if got := readAll(t, s, put(t, s, "after\n")); got != "after\n" {
				t.Errorf("new output after damage: %q", got)
			}
		})
	}
}

func TestDirStoreReadsSurviveRemovalOfOpenFiles(t *testing.T) {
	dir := t.TempDir()
	s, err := NewDirStore(DirOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ref := put(t, s, "one\ntwo\nthree\n")
	out, err := s.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	os.RemoveAll(dir)
	page, err := out.ReadLines(context.Background(), 2, 5, 1000)
	if err != nil {
		// Systems that cannot read removed open files must fail cleanly.
		t.Logf("read after removal: %v", err)
		return
	}
	if len(page.Lines) != 2 || page.Lines[0].Text != "two" {
		t.Errorf("read after removal: %+v", page)
	}
}

func TestDirStorePrunesByAgeAndSize(t *testing.T) {
	dir := t.TempDir()
	s, err := NewDirStore(DirOptions{Dir: dir, MaxBytes: 10 << 10, MaxAge: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	old := put(t, s, "old\n")
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, old+metaSuffix), past, past)
	abandoned := filepath.Join(dir, NewRef()+dataSuffix)
	os.WriteFile(abandoned, []byte("a writer died here"), 0o600)
	os.Chtimes(abandoned, past, past)
	chunk := strings.Repeat("c", 4<<10)
	refs := []string{put(t, s, chunk), put(t, s, chunk), put(t, s, chunk)}
	for i, r := range refs {
		os.Chtimes(filepath.Join(dir, r+metaSuffix), time.Now().Add(time.Duration(i-10)*time.Minute), time.Now().Add(time.Duration(i-10)*time.Minute))
	}
	if err := s.Prune(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		kept = append(kept, e.Name())
	}
	want := []string{refs[1] + dataSuffix, refs[1] + metaSuffix, refs[2] + dataSuffix, refs[2] + metaSuffix}
	if diff := cmp.Diff(sorted(want), sorted(kept)); diff != "" {
		t.Errorf("files kept (-want +got):\n%s", diff)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestLineIndexMatchesANaiveIndex(t *testing.T) {
	var sb bytes.Buffer
	for i := range 3*IndexEvery + 17 {
		fmt.Fprintf(&sb, "%s\n", strings.Repeat("w", i%13))
	}
	data := sb.Bytes()
	for _, piece := range []int{1, 7, 4096, 10000, len(data)} {
		var x LineIndex
		for rest := data; len(rest) > 0; {
			n := min(piece, len(rest))
			x.Write(rest[:n])
			rest = rest[n:]
		}
		m := x.Meta("r", Info{})
		want := naiveIndex(data)
		if diff := cmp.Diff(want, m.Index); diff != "" || m.Lines != 3*IndexEvery+17 {
			t.Errorf("pieces of %d: lines %d, index (-want +got):\n%s", piece, m.Lines, diff)
		}
	}
}

func naiveIndex(data []byte) []int64 {
	idx := []int64{0}
	line := 0
	for i, c := range data {
		if c == '\n' {
			line++
			if line%IndexEvery == 0 {
				idx = append(idx, int64(i+1))
			}
		}
	}
	return idx
}

func TestDirStorePrunesByCount(t *testing.T) {
	dir := t.TempDir()
	s, err := NewDirStore(DirOptions{Dir: dir, MaxOutputs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	for i := range 5 {
		refs = append(refs, put(t, s, "output\n"))
		at := time.Now().Add(time.Duration(i-10) * time.Minute) // modification times in order, whatever the clock's grain
		os.Chtimes(filepath.Join(dir, refs[i]+metaSuffix), at, at)
	}
	if err := s.Prune(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		kept = append(kept, e.Name())
	}
	want := []string{refs[3] + dataSuffix, refs[3] + metaSuffix, refs[4] + dataSuffix, refs[4] + metaSuffix}
	if diff := cmp.Diff(sorted(want), sorted(kept)); diff != "" {
		t.Errorf("files kept (-want +got):\n%s", diff)
	}
	if got := s.File(refs[4]); got != filepath.Join(dir, refs[4]+dataSuffix) {
		t.Errorf("File = %s", got)
	}
}
