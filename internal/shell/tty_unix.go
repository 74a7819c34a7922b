//go:build unix

package shell

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// ttySize is a run's terminal: as wide as a model's output is read, so
// that a program lays its lines out for that width.
var ttySize = pty.Winsize{Rows: 24, Cols: 120}

// OpenTTY opens a pseudo-terminal for a run. Both ends are opened
// close-on-exec, the slave without making it anyone's controlling
// terminal (O_NOCTTY): the sandbox's launcher makes it the program's
// (sandbox.Process.Terminal), in the program's own session.
func OpenTTY() (*TTY, error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("pseudo-terminal: %w", err)
	}
	if err := pty.Setsize(master, &ttySize); err != nil {
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("pseudo-terminal size: %w", err)
	}
	return &TTY{master: master, slave: slave}, nil
}

// Write types p into the terminal, as a keyboard would: the program reads
// it from its standard input (with the terminal's line editing: \x03 is
// Ctrl-C, \x04 ends a line's input). A program that reads nothing holds the
// write after a terminal's buffer of input fills: it fails at deadline.
func (t *TTY) Write(p []byte, deadline time.Time) error {
	if err := t.master.SetWriteDeadline(deadline); err != nil {
		return err
	}
	_, err := t.master.Write(p)
	return err
}

// Close closes both ends (the slave may be closed already: a run closes
// it as it ends). Closing again does nothing.
func (t *TTY) Close() error {
	t.closeOnce.Do(func() {
		err := t.slave.Close()
		if errors.Is(err, os.ErrClosed) {
			err = nil
		}
		t.closeErr = errors.Join(err, t.master.Close())
	})
	return t.closeErr
}

// readEnd is where a run reads its programs' output: a terminal's master
// side returns EIO once no program holds the slave, which is its end of
// output.
type readEnd struct{ f *os.File }

func (r readEnd) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	if errors.Is(err, syscall.EIO) {
		err = io.EOF
	}
	return n, err
}
