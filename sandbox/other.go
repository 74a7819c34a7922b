//go:build !linux

package sandbox

import "os/exec"

// Check reports that the kernel sandbox is implemented for Linux only.
func Check() error {
	return &UnavailableError{Missing: "a Linux kernel (the sandbox uses Landlock and namespaces)"}
}

func (p *Profile) wrap(*exec.Cmd) error { return Check() }

// Describe says what the sandbox uses on this machine: nothing.
func Describe() string { return "no kernel sandbox on this platform" }

// MayWrite reports whether a process started under p may write path: any
// path when p is unconfined; none when it is confined, since nothing can
// start confined here.
func (p *Profile) MayWrite(string) bool { return !p.Confined() }
