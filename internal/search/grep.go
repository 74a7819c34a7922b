package search

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"github.com/quiverkit/quiver/workspace"
)

// GrepRequest is one search over a workspace.
type GrepRequest struct {
	Matcher     *Matcher
	Start       string    // directory or file, relative to the workspace root
	Filter      *PathGlob // only files it matches, relative to Start (nil: all)
	Walk        WalkOptions
	MaxFileSize int64 // files larger than this are skipped and counted; 0: no limit
	// Only, when set, narrows the search to the files (relative to the
	// workspace root) it keeps, among those the walk visits: a remote
	// backend's own search (GitHub's code search) picked them.
	Only func(rel string) bool
}

// GrepStats counts what a grep saw besides its results.
type GrepStats struct {
	WalkStats
	Searched int64 // files read
	Binary   int64 // files in which a NUL byte ended the search
	TooLarge int64 // files skipped for MaxFileSize
}

// Grep searches every file below req.Start and feeds the results to c.
//
// Every file is searched, so the totals beyond c's limit are exact and the
// results do not depend on which worker finishes first. What stops early
// is the work per file: in files mode a file is done at its first match,
// and once a file has given the limit's worth of matches, or sorts after
// everything c keeps, its further matches are only counted — no line
// numbers, no context, no copies.
func Grep(ctx context.Context, ws *workspace.Workspace, req GrepRequest, c *Collector) (GrepStats, error) {
	var searched, binary, tooLarge atomic.Int64
	ctx = ws.SearchContext(ctx)
	newVisit := func() VisitFunc {
		s := newFileSearcher(req.Matcher, c)
		return func(e *Entry) error {
			if !e.IsRegular() {
				return nil // symlinks are not followed unless the walk follows them; devices and FIFOs never
			}
			if req.Filter != nil && !req.Filter.Match(relTo(req.Start, e.Rel), e.Name) {
				return nil
			}
			if req.Only != nil && !req.Only(e.Rel) {
				return nil
			}
			f, err := e.open(ctx, ws)
			if err != nil {
				return err
			}
			defer f.Close()
			if req.MaxFileSize > 0 && f.Size() > req.MaxFileSize {
				tooLarge.Add(1)
				return nil
			}
			searched.Add(1)
			res, isBinary, err := s.search(ctx, e.Rel, f)
			if isBinary {
				binary.Add(1)
			}
			if err != nil {
				return err
			}
			if isBinary && c.mode == ModeCount {
				// As in ripgrep, a count is only given for files read to the end.
				return nil
			}
			c.Add(res)
			return nil
		}
	}
	walked, err := Walk(ctx, ws, req.Start, req.Walk, newVisit)
	if walked.Budget {
		c.BudgetCut()
	}
	return GrepStats{WalkStats: walked, Searched: searched.Load(), Binary: binary.Load(), TooLarge: tooLarge.Load()}, err
}

// fileReader is an open regular file.
type fileReader interface {
	io.ReadCloser
	Size() int64
}

// open opens e for reading: by its directory's descriptor, or through the
// workspace for a start path or a followed link.
func (e *Entry) open(ctx context.Context, ws *workspace.Workspace) (fileReader, error) {
	if e.dir != nil && !e.followed {
		f, err := e.dir.sys.openFile(e.Name)
		if err != nil {
			return nil, err
		}
		if f.links > 1 && ws.Guarded() {
			// Another name of this file may be denied (a hard link made
			// before the deny); the workspace knows where to look.
			if err := deniedLink(ws, e.real); err != nil {
				f.Close()
				return nil, err
			}
		}
		return f, nil
	}
	f, fi, err := statOpened(ws.OpenReadContext(ctx, e.Rel))
	if err != nil {
		return nil, err
	}
	return osFile{f, fi.Size()}, nil
}

// deniedLink refuses the file real (workspace-relative, links resolved)
// when it is a hard link to a path the read guard denies.
func deniedLink(ws *workspace.Workspace, real string) error {
	fi, err := ws.Lstat(real)
	if err != nil {
		return err
	}
	if name, rule, ok := ws.DeniedLink(fi); ok {
		return fmt.Errorf("%s is a hard link to %s, which %s denies: %w", real, name, rule, workspace.ErrReadDenied)
	}
	return nil
}

// statOpened stats a file just opened, closing it when that fails.
func statOpened(f fs.File, err error) (fs.File, fs.FileInfo, error) {
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

type osFile struct {
	io.ReadCloser
	size int64
}

func (f osFile) Size() int64 { return f.size }

// Buffer sizes. A file up to maxWhole bytes is read whole into the worker's
// buffer; a larger one is read through a window of that many bytes, so a
// worker never holds more than maxWhole bytes of file data.
const (
	maxWhole   = 8 << 20
	overlap    = 256      // bytes a window of an over-long line shares with the next
	rgInitial  = 64 << 10 // ripgrep's initial read buffer, whose fills decide where a NUL stops a search
	rgGrowthBy = 3        // ripgrep's buffer grows to this many times its size when a line does not fit
)

// search reads one file and returns its result. isBinary reports that a NUL
// byte ended the search.
func (s *fileSearcher) search(ctx context.Context, path string, f fileReader) (res FileResult, isBinary bool, err error) {
	s.begin(path)
	size := f.Size()
	if size < int64(s.maxWhole) {
		done, isBinary, err := s.searchWhole(f, size)
		if done || err != nil {
			return s.res, isBinary, err
		}
	}
	isBinary, err = s.searchStream(ctx, f)
	return s.res, isBinary, err
}

// searchWhole reads the file into the buffer in one go and searches it. It
// reports done=false, with the data read so far left in the buffer, when
// the file turned out larger than its size said and the stream search must
// take over.
func (s *fileSearcher) searchWhole(f fileReader, size int64) (done, isBinary bool, err error) {
	want := int(size) + 1
	if cap(s.buf) < want {
		s.buf = make([]byte, max(want, 64<<10))
	}
	buf := s.buf[:cap(s.buf)]
	n := 0
	for n < int(size) || size == 0 {
		k, err := f.Read(buf[n:])
		n += k
		if err == io.EOF || k == 0 && err == nil {
			break
		}
		if err != nil {
			return true, false, err
		}
		if n == len(buf) {
			s.n = n // grew past its size: continue as a stream
			return false, false, nil
		}
	}
	data := buf[:n]
	limit, final, isBinary := len(data), true, false
	if bytesIndexNUL(data) >= 0 {
		l := rgLimit(data)
		limit, final, isBinary = int(l), false, true
	}
	s.region(data[:limit], final)
	return true, isBinary, nil
}

// rgLimit returns how far ripgrep searches data, a whole file holding a
// NUL byte: up to the complete lines of the read blocks before the block
// in which the NUL appears.
func rgLimit(data []byte) int64 {
	sim := rgSim{buflen: rgInitial}
	for {
		r, at := sim.fill(data, 0, int64(len(data)), true)
		if r == simLines {
			continue
		}
		return at
	}
}
