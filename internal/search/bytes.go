package search

import (
	"bytes"
	"context"
	"io"
)

// Searcher searches files held in memory, as [Grep] searches files on disk:
// the same matcher, the same binary rule (a NUL byte ends the search at the
// read block that holds it), the same results fed to the same collector.
// It is for workspaces that are not on disk (a repository read through an
// API). A Searcher reuses its buffer: one per goroutine.
type Searcher struct {
	s *fileSearcher
	c *Collector
}

// NewSearcher returns a Searcher of m feeding c.
func NewSearcher(m *Matcher, c *Collector) *Searcher {
	return &Searcher{s: newFileSearcher(m, c), c: c}
}

// Search searches data as the file at path (relative to the workspace
// root) and adds its result to the collector; it reports whether a NUL
// byte ended the search.
func (s *Searcher) Search(ctx context.Context, path string, data []byte) (isBinary bool, err error) {
	res, isBinary, err := s.s.search(ctx, path, bytesFile{bytes.NewReader(data), int64(len(data))})
	if err != nil {
		return isBinary, err
	}
	if isBinary && s.c.mode == ModeCount {
		return true, nil // as Grep: a count is only given for files read to the end
	}
	s.c.Add(res)
	return isBinary, nil
}

type bytesFile struct {
	io.Reader
	size int64
}

func (f bytesFile) Close() error { return nil }
func (f bytesFile) Size() int64  { return f.size }
