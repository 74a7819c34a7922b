package sandbox

// Report is what the sandbox enforces on this machine, layer by layer, as
// `quiver sandbox check` prints it; [Inspect] makes one.
type Report struct {
	// Available is false when confined profiles cannot run here; Missing
	// then says why.
	Available bool   `json:"available"`
	Missing   string `json:"missing,omitempty"`
	// LandlockABI is the ABI Quiver uses (the kernel's, or less under the
	// QUIVER_SANDBOX_LANDLOCK_ABI test hook); KernelABI the kernel's.
	LandlockABI int `json:"landlock_abi"`
	KernelABI   int `json:"kernel_landlock_abi"`
	// LandlockRights are the Landlock rights and scopes Quiver handles at
	// that ABI: everything it does not grant is refused.
	LandlockRights []string `json:"landlock_rights"`
	// Namespaces are the namespaces a confined process gets: user, mount,
	// PID, IPC, and network when the network is off.
	Namespaces []string `json:"namespaces"`
	// Process are the launcher's own layers, which every confined start
	// gets whatever the kernel: its environment, the program's session,
	// the descriptors it inherits, how long its processes live.
	Process []string `json:"process"`
	// Seccomp is the filter's rules, for a profile without unix_sockets.
	Seccomp []SyscallRule `json:"seccomp"`
	// Profiles says what each write scope enforces here.
	Profiles []ProfileReport `json:"profiles"`
}

// SyscallRule is one rule of the seccomp filter: the system call, which of
// its calls are refused, and why.
type SyscallRule struct {
	Syscall string `json:"syscall"`
	Refused string `json:"refused"`
	Why     string `json:"why"`
}

// ProfileReport is what one write scope's profile enforces on this
// machine.
type ProfileReport struct {
	Scope    WriteScope `json:"mode"`
	Enforces []string   `json:"enforces"`
}
