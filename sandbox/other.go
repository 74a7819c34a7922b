//go:build !linux

package sandbox

import "os/exec"

// Check reports that the kernel sandbox is implemented for Linux only.
func Check() error {
	return &UnavailableError{Missing: "a Linux kernel (the sandbox uses Landlock and namespaces)"}
}

func (p *Profile) wrap(*exec.Cmd) error { return Check() }

// Check reports whether p can be enforced here: only when it is
// unconfined.
func (p *Profile) Check() error {
	if !p.Confined() {
		return nil
	}
	return Check()
}

// Inspect reports that nothing is enforced on this platform.
func Inspect(cfg Config) Report {
	r := Report{Missing: Check().Error()}
	why := []string{"nothing: no kernel sandbox on this platform, and every confined start is refused"}
	r.Profiles = []ProfileReport{{ReadOnly, why}, {WorkspaceWrite, why}, {Unrestricted, []string{"nothing (the explicit opt-out)"}}}
	return r
}

// MayWrite reports whether a process started under p may write path: any
// path when p is unconfined; none when it is confined, since nothing can
// start confined here.
func (p *Profile) MayWrite(string) bool { return !p.Confined() }
