//go:build !unix

package sandboxtest

import (
	"syscall"
	"testing"
)

// queued is Unix's alone: there is no kernel sandbox to test elsewhere.
func queued(t testing.TB, _ syscall.Conn, _ bool) bool {
	t.Helper()
	t.Fatal("the escape attempts run on Linux only")
	return false
}
