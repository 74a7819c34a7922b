package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// overflowKey is the toolkit's store of exec_command's overflow files:
// where a command's whole output goes when it outgrows the message budget
// and the toolkit has no output cache. It is Shared, so one directory and
// its caps serve every call; an io.Closer, so the toolkit's Close removes
// the directory.
var overflowKey = tool.Key[*overflowFiles]{ID: "quiver.exec.overflow", Shared: true,
	Create: func(context.Context) (*overflowFiles, error) { return &overflowFiles{}, nil }}

// overflowFiles keeps the overflow files in an outputcache.DirStore of
// their own, made on first use in Quiver's own directory (sandbox.OwnDir:
// no confined process can read it, and what a killed Quiver left is swept
// by the next). The store's pruning is the bound: the newest files within
// ExecConfig's OverflowMaxBytes and OverflowMaxFiles are kept, each
// output cut at OverflowMaxBytes.
type overflowFiles struct {
	mu     sync.Mutex
	store  *outputcache.DirStore
	closed bool
}

// create starts a new overflow file and returns its writer and its path.
func (o *overflowFiles) create(ctx context.Context, cfg ExecConfig, info outputcache.Info) (outputcache.Writer, string, error) {
	o.mu.Lock()
	defer o.mu.Unlock() // held over Create: Close must not remove the directory a writer is being made in
	if o.closed {
		return nil, "", errors.New("output file: the toolkit is closed")
	}
	if o.store == nil {
		own, err := sandbox.OwnDir()
		if err != nil {
			return nil, "", fmt.Errorf("output file: %w", err)
		}
		dir, err := os.MkdirTemp(own, "exec-")
		if err != nil {
			return nil, "", fmt.Errorf("output file: %w", err)
		}
		store, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: dir,
			MaxBytes: cfg.OverflowMaxBytes, MaxOutputs: cfg.OverflowMaxFiles})
		if err != nil {
			os.Remove(dir)
			return nil, "", fmt.Errorf("output file: %w", err)
		}
		o.store = store
	}
	w, err := o.store.Create(ctx, info)
	if err != nil {
		return nil, "", fmt.Errorf("output file: %w", err)
	}
	return w, o.store.File(w.Ref()), nil
}

// Close removes every overflow file: the answers that named them belong
// to the toolkit's calls, which are over.
func (o *overflowFiles) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.store == nil {
		return nil
	}
	if err := os.RemoveAll(o.store.Dir()); err != nil {
		return fmt.Errorf("exec_command's output files: %w", err)
	}
	return nil
}
