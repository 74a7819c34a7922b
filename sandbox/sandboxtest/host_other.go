//go:build !linux

package sandboxtest

import (
	"os"
	"os/exec"
	"testing"
)

// host is Linux's alone: elsewhere there is no kernel sandbox to test.
type host struct{}

func newHost(testing.TB, string) *host { return nil }
func (*host) inherited() []*os.File    { return nil }
func (*host) shareHere(t testing.TB) []int {
	t.Fatal("descriptors are handed down on Linux only")
	return nil
}
func (*host) onTerminal(*exec.Cmd)                {}
func (*host) replacer(r []string) []string        { return r }
func (*host) touched(testing.TB, string) []string { return nil }
