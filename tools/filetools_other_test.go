//go:build !unix

package tools

import (
	"errors"
	"testing"
)

// mkfifo fails: there are no named pipes to put in a workspace here.
func mkfifo(string) error { return errors.ErrUnsupported }

// childWriteOverSizeLimit fails: there is no RLIMIT_FSIZE to run under here.
func childWriteOverSizeLimit(t *testing.T, _ string) {
	t.Fatal("no file size limit on this system")
}
