package github

import (
	"context"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/quiverkit/quiver/internal/search"
)

// GrepBounds bound what one search of the repository may fetch; a blob
// already cached costs nothing.
type GrepBounds struct {
	MaxBytes    int64 // bytes of blobs fetched; 32 MiB when 0
	MaxRequests int   // blob requests; 300 when 0
	MaxFileSize int64 // a larger file is skipped and counted as TooLarge; no limit when 0
	Parallel    int   // blobs fetched at once; 8 when 0
}

// GrepStats says what a search saw and what its bounds cut.
type GrepStats struct {
	Searched int   // files searched
	Binary   int   // files in which a NUL byte ended the search
	TooLarge int   // files skipped for MaxFileSize
	Requests int   // blob requests sent
	Bytes    int64 // bytes of blobs fetched
	// Cut is how many files were not searched because a bound was
	// reached: the results and totals are of the files before them in
	// path order. CutBy names the bound ("bytes" or "requests").
	Cut   int
	CutBy string
}

func (b GrepBounds) withDefaults() GrepBounds {
	if b.MaxBytes == 0 {
		b.MaxBytes = 32 << 20
	}
	if b.MaxRequests == 0 {
		b.MaxRequests = 300
	}
	if b.Parallel == 0 {
		b.Parallel = 8
	}
	return b
}

// Grep searches files (in path order; entries other than regular files
// and executables are passed over, as the walker on disk passes over
// symbolic links) with m, feeding col as search.Grep does, fetching blobs
// several at once. The fetches are budgeted in path order before they
// start, so which files a bound cuts does not depend on timing.
func (c *Client) Grep(ctx context.Context, files []Entry, m *search.Matcher, col *search.Collector, b GrepBounds) (GrepStats, error) {
	b = b.withDefaults()
	var st GrepStats
	var searched, binary atomic.Int64
	pool := sync.Pool{New: func() any { return search.NewSearcher(m, col) }}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.Parallel)
	for i, e := range files {
		if e.Type != TypeBlob || e.IsSymlink() {
			continue
		}
		if b.MaxFileSize > 0 && e.Size > b.MaxFileSize {
			st.TooLarge++
			continue
		}
		if _, cached := c.blobs.get(e.SHA); !cached {
			switch {
			case st.Requests+1 > b.MaxRequests:
				st.CutBy = "requests"
			case st.Bytes+e.Size > b.MaxBytes:
				st.CutBy = "bytes"
			}
			if st.CutBy != "" {
				st.Cut = countRegular(files[i:])
				break
			}
			st.Requests++
			st.Bytes += e.Size
		}
		g.Go(func() error {
			data, err := c.Blob(gctx, e.SHA, e.Size)
			if err != nil {
				return err
			}
			s := pool.Get().(*search.Searcher)
			defer pool.Put(s)
			isBinary, err := s.Search(gctx, e.Path, data)
			searched.Add(1)
			if isBinary {
				binary.Add(1)
			}
			return err
		})
	}
	err := g.Wait()
	st.Searched, st.Binary = int(searched.Load()), int(binary.Load())
	return st, err
}

func countRegular(es []Entry) int {
	n := 0
	for _, e := range es {
		if e.Type == TypeBlob && !e.IsSymlink() {
			n++
		}
	}
	return n
}
