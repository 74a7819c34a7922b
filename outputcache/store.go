package outputcache

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/quiverkit/quiver/tool"
)

// Key is the dependency key under which the toolkit provides its store to
// tools that stream output into it (exec_command) and to the tools that read
// it back (tool_output_cache, tool_output_cache_grep). It has no Create:
// without a store configured, such tools fall back to their own means.
var Key = tool.Key[Store]{ID: "quiver.outputcache", Shared: true}

// Info describes an output being stored.
type Info struct {
	Tool   string // the tool that produced it
	CallID string // the call's id; ref ids stay unique even when call ids repeat
	// Numbered says that the output's lines carry line numbers of their own
	// (read_file's), so that a reader shows them as they are rather than
	// numbering them again.
	Numbered bool
	// Paths are the workspace paths the call that produced the output
	// named (its path subjects, as written and as resolved). A reader of
	// the stored output holds them to the read deny in force when it
	// reads: an output that came from a path denied since is refused.
	Paths []string
}

// NumberedLines is implemented by a tool's typed output whose rendered text
// numbers its lines already, as read_file's does. [Trim] records it in the
// stored output's [Info].
type NumberedLines interface {
	LinesNumbered() bool
}

// Store keeps outputs behind reference ids. [MemoryStore] and [DirStore] are
// the two stock stores; both are safe for concurrent use.
type Store interface {
	// Create starts a new stored output. Write to it as the output is
	// produced, then Close it; the ref is readable once closed.
	Create(ctx context.Context, info Info) (Writer, error)
	// Open returns a sealed output for reading; Close it when done. A ref
	// that is not a ref id at all fails with [ErrMalformedRef] before any
	// lookup; one the store does not hold with [ErrNotFound]; one still
	// being written with [ErrInProgress].
	Open(ctx context.Context, ref string) (*Output, error)
}

// Writer receives one output as it is produced. Its methods are safe for
// concurrent use (a command's stdout and stderr may share one Writer).
type Writer interface {
	io.Writer
	// Ref is the output's reference id, known from the start.
	Ref() string
	// Close seals the output.
	Close() error
}

// The errors a store's Open returns, wrapped with the ref they concern; a
// store's Create, Write and Close return ErrUnavailable too.
var (
	ErrMalformedRef = errors.New("not a reference id")
	ErrNotFound     = errors.New("no stored output with this id")
	ErrInProgress   = errors.New("output is still being written")
	ErrDamaged      = errors.New("stored output is damaged")
	// ErrUnavailable is a store that cannot be reached (a shared store
	// such as Redis that is down): the output may well exist, and asking
	// again later may succeed. The tools answer it as STORE_UNAVAILABLE.
	ErrUnavailable = errors.New("output store is unavailable")
)

// Meta describes a sealed output. The dir store keeps it beside the data,
// as JSON, so that a later process can read the output without a scan.
type Meta struct {
	Ref     string    `json:"ref"`
	Tool    string    `json:"tool,omitempty"`
	CallID  string    `json:"call_id,omitempty"`
	Created time.Time `json:"created"`
	Size    int64     `json:"size"`              // bytes stored
	Lines   int64     `json:"lines"`             // lines stored; a last line without a newline counts
	Dropped int64     `json:"dropped,omitempty"` // bytes written past the store's limit, not kept
	// Numbered is Info.Numbered: the lines carry numbers of their own.
	Numbered bool `json:"numbered,omitempty"`
	// Paths is Info.Paths: the paths the producing call named.
	Paths []string `json:"paths,omitempty"`
	// Index holds the byte offset at which every IndexEvery-th line starts
	// (0-based line 0, IndexEvery, 2*IndexEvery...).
	IndexEvery int     `json:"index_every"`
	Index      []int64 `json:"index"`
}

// Output is a sealed output opened for reading: its [Meta] and its bytes.
// It is safe for concurrent use. Read lines with [Output.ReadLines] and
// search with [Output.Grep].
type Output struct {
	Meta
	data  io.ReaderAt
	close func() error
	once  sync.Once
	err   error
}

// NewOutput returns an Output over data described by meta, for stores other
// than the stock ones. close (may be nil) is called once, by Close.
func NewOutput(meta Meta, data io.ReaderAt, close func() error) *Output {
	return &Output{Meta: meta, data: data, close: close}
}

// ReadAt reads the stored bytes; it never reads past Size.
func (o *Output) ReadAt(p []byte, off int64) (int, error) {
	if off >= o.Size {
		return 0, io.EOF
	}
	if rest := o.Size - off; int64(len(p)) > rest {
		n, err := o.data.ReadAt(p[:rest], off)
		if err == nil || (err == io.EOF && int64(n) == rest) {
			err = io.EOF
		}
		return n, err
	}
	return o.data.ReadAt(p, off)
}

// Close releases the output. Closing twice is harmless.
func (o *Output) Close() error {
	o.once.Do(func() {
		if o.close != nil {
			o.err = o.close()
		}
	})
	return o.err
}
