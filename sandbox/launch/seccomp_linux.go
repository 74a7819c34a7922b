package launch

// The seccomp filter is built with github.com/elastic/go-seccomp-bpf
// (Apache-2.0): pure Go, so the launcher stays a static binary with no
// libseccomp; maintained by Elastic for Auditbeat, with syscall tables
// regenerated from each kernel release (v1.6.0: Linux 6.15); and it hands
// back the assembled instructions, so the guard against other ABIs can be
// put in front (see seccompProgram). libseccomp-golang needs cgo, and
// moby/profiles only describes profiles for runc to load. Two of the
// library's behaviours are worked around here: it compares arguments on
// all 64 bits (equalLow32), and a foreign architecture falls through to the
// default action, which for a denylist allows (the guard).

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// SyscallRule is one rule of the seccomp filter, as `quiver sandbox check`
// reports it: the system call, which of its calls are refused, and why.
type SyscallRule struct {
	Syscall string `json:"syscall"`
	Refused string `json:"refused"`
	Why     string `json:"why"`
}

// Socket families and ioctl requests the filter names (the same numbers on
// amd64 and arm64).
const (
	afUnix    = 1
	afInet    = 2
	afInet6   = 10
	afNetlink = 16

	tiocsti   = 0x5412
	tioclinux = 0x541c

	sockDgram = 2 // SOCK_RAW (3) makes a datagram AF_UNIX socket too
)

// refusedOutright are the system calls refused whatever their arguments,
// with the reason for each.
var refusedOutright = []SyscallRule{
	{"ptrace", "every call", "as Codex: a second wall beside Landlock's own, for a launcher that stays outside the domain"},
	{"process_vm_readv", "every call", "as Codex: another process's memory"},
	{"process_vm_writev", "every call", "as Codex: another process's memory"},
	{"io_uring_setup", "every call", "as Codex: io_uring creates and connects sockets without the system calls this filter sees"},
	{"io_uring_enter", "every call", "as Codex"},
	{"io_uring_register", "every call", "as Codex"},
	{"bpf", "every call", "kernel attack surface, nothing a build needs"},
	{"perf_event_open", "every call", "kernel attack surface and side channels"},
	{"userfaultfd", "every call", "a kernel-exploit primitive"},
	{"keyctl", "every call", "the kernel keyrings are not namespaced: the user's keys"},
	{"add_key", "every call", "the kernel keyrings are not namespaced"},
	{"request_key", "every call", "the kernel keyrings are not namespaced"},
	{"kexec_load", "every call", "never needed"},
	{"kexec_file_load", "every call", "never needed"},
}

// SyscallRules are the rules of the filter s applies, refused ones first.
func (s *Spec) SyscallRules() []SyscallRule {
	rules := append([]SyscallRule(nil), refusedOutright...)
	socket := SyscallRule{"socket", "every family but AF_INET, AF_INET6 and AF_NETLINK (AF_VSOCK, AF_UNIX and the rest)",
		"AF_UNIX reaches the host's named sockets from every network namespace, AF_VSOCK the hypervisor; the network namespace already fences the IP families"}
	pair := SyscallRule{"socketpair", "every family but AF_UNIX, and AF_UNIX datagram pairs (SOCK_DGRAM, SOCK_RAW)",
		"a stream pair reaches nothing outside; a datagram one can sendto(2) a named socket"}
	if s.unixAllowed() {
		socket.Refused = "every family but AF_INET, AF_INET6, AF_NETLINK and AF_UNIX ([sandbox] unix_sockets is set)"
		pair.Refused = "every family but AF_UNIX"
	}
	return append(rules, socket, pair,
		SyscallRule{"ioctl", "TIOCSTI and TIOCLINUX (compared on the 32 bits the kernel reads)",
			"typing into a terminal: the user's shell runs what was pushed"},
		SyscallRule{"(other ABIs)", "x32 and i386 (int 0x80) system calls on amd64, anything but the native ABI elsewhere",
			"the rules above name native numbers only"})
}

// unixAllowed reports whether the profile lets AF_UNIX sockets be made:
// only when the operator listed some ([sandbox] unix_sockets), whose
// connections Landlock then limits (see restrict).
func (s *Spec) unixAllowed() bool { return len(s.UnixSockets) > 0 }

// syscallPolicy is the filter of s in go-seccomp-bpf's terms: a denylist
// (the default allows) whose matches fail with EPERM, as Codex's do.
func (s *Spec) syscallPolicy() seccomp.Policy {
	var outright []string
	for _, r := range refusedOutright {
		outright = append(outright, r.Syscall)
	}
	socket := []seccomp.Condition{
		// NotEqual compares all 64 bits: a family with high bits set is
		// refused too, which is the safe side.
		{Argument: 0, Operation: seccomp.NotEqual, Value: afInet},
		{Argument: 0, Operation: seccomp.NotEqual, Value: afInet6},
		{Argument: 0, Operation: seccomp.NotEqual, Value: afNetlink},
	}
	pairs := []seccomp.NameWithConditions{{Name: "socketpair", Conditions: []seccomp.Condition{
		{Argument: 0, Operation: seccomp.NotEqual, Value: afUnix}}}}
	if s.unixAllowed() {
		socket = append(socket, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: afUnix})
	} else {
		// (type & 0xe) == 2: SOCK_DGRAM or SOCK_RAW, whatever the flags.
		pairs = append(pairs, seccomp.NameWithConditions{Name: "socketpair", Conditions: []seccomp.Condition{
			{Argument: 1, Operation: seccomp.BitsSet, Value: sockDgram},
			{Argument: 1, Operation: seccomp.BitsNotSet, Value: 0xc}}})
	}
	withArgs := append([]seccomp.NameWithConditions{{Name: "socket", Conditions: socket}}, pairs...)
	withArgs = append(withArgs,
		seccomp.NameWithConditions{Name: "ioctl", Conditions: equalLow32(1, tiocsti)},
		seccomp.NameWithConditions{Name: "ioctl", Conditions: equalLow32(1, tioclinux)})
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: outright, Action: seccomp.ActionErrno},
			{NamesWithCondtions: withArgs, Action: seccomp.ActionErrno},
		},
	}
}

// equalLow32 matches when the low 32 bits of argument arg equal v, whatever
// the high bits. The kernel reads an int or unsigned int argument (ioctl's
// request) from the low half of its register, while the library's Equal
// compares all 64 bits: an ioctl(fd, 0x1_0000_5412) is TIOCSTI to the
// kernel, and would pass an Equal rule (Flatpak's CVE-2019-10063). With no
// high bits in the mask, BitsSet and BitsNotSet look at the low half only:
// none of v's zero bits set, and each of its one bits set.
func equalLow32(arg uint32, v uint32) []seccomp.Condition {
	conds := []seccomp.Condition{{Argument: arg, Operation: seccomp.BitsNotSet, Value: uint64(^v)}}
	for bit := uint32(1); bit != 0; bit <<= 1 {
		if v&bit != 0 {
			conds = append(conds, seccomp.Condition{Argument: arg, Operation: seccomp.BitsSet, Value: uint64(bit)})
		}
	}
	return conds
}

// seccompProgram assembles the filter of s for this architecture, behind a
// guard that refuses, with ENOSYS, every system call made through another
// ABI: the library's own check lets those through to its default action,
// which here allows. (Its x32 check, which also answers ENOSYS, stays.)
func (s *Spec) seccompProgram() ([]syscall.SockFilter, error) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return nil, fmt.Errorf("seccomp: no filter for %s (amd64 and arm64 only)", runtime.GOARCH)
	}
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	policy := s.syscallPolicy()
	body, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(syscall.ENOSYS)},
	}
	raw, err := bpf.Assemble(append(guard, body...))
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	prog := make([]syscall.SockFilter, len(raw))
	for i, in := range raw {
		prog[i] = syscall.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	return prog, nil
}

// filterSyscalls installs the seccomp filter of s on the calling thread,
// which the launcher execs from. It runs last, after Landlock has set
// no_new_privs, so that nothing the launcher itself still does is refused.
func (s *Spec) filterSyscalls() error {
	prog, err := s.seccompProgram()
	if err != nil {
		return err
	}
	if err := errnoErr(prctl(prSetNoNewPrivs, 1)); err != nil {
		return fmt.Errorf("seccomp: no_new_privs: %w", err)
	}
	fprog := syscall.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		if errors.Is(e, syscall.EINVAL) || errors.Is(e, syscall.ENOSYS) {
			return fmt.Errorf("seccomp: the kernel has no seccomp filters: %w", e)
		}
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}
