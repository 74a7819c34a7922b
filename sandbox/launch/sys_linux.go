package launch

import (
	"syscall"
	"unsafe"
)

// The few system calls the launcher makes beyond package syscall, made
// directly so that the package needs nothing outside the standard library
// (see the package doc: that keeps its init early). The Landlock calls have
// the same numbers on every architecture Go supports on Linux.
const (
	oPath = 0x200000 // O_PATH, which package syscall lacks (the same value on every Linux architecture but alpha, parisc and sparc)

	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockRulePathBeneath      = 1

	prSetNoNewPrivs       = 38
	prCapbsetDrop         = 24
	prCapAmbient          = 47
	prCapAmbientClearAll  = 4
	linuxCapabilityV3     = 0x20080522
	statfsFlagsMountFlags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC |
		syscall.MS_NOATIME | syscall.MS_NODIRATIME | syscall.MS_RELATIME // statfs's ST_* equal these MS_* on Linux
)

func prctl(option, arg2 uintptr) syscall.Errno {
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg2, 0, 0, 0, 0)
	return e
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// rulesetAttr is struct landlock_ruleset_attr.
type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

func landlockCreateRuleset(attr *rulesetAttr, size uintptr, flags uintptr) (int, error) {
	fd, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(attr)), size, flags)
	return int(fd), errnoErr(e)
}

func landlockAddPathRule(ruleset int, access uint64, fd int) error {
	// struct landlock_path_beneath_attr is packed: a u64 then an s32, 12 bytes.
	var buf [12]byte
	*(*uint64)(unsafe.Pointer(&buf[0])) = access
	*(*int32)(unsafe.Pointer(&buf[8])) = int32(fd)
	_, _, e := syscall.RawSyscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath, uintptr(unsafe.Pointer(&buf[0])), 0, 0, 0)
	return errnoErr(e)
}

func landlockRestrictSelf(ruleset int) error {
	_, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0)
	return errnoErr(e)
}

// capUserHeader and capUserData are the capset(2) structures, version 3.
type capUserHeader struct {
	version uint32
	pid     int32
}

type capUserData struct {
	effective, permitted, inheritable uint32
}

func capsetNone() error {
	hdr := capUserHeader{version: linuxCapabilityV3}
	var data [2]capUserData
	_, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	return errnoErr(e)
}

// ifreqFlags is struct ifreq with its union as the interface flags.
type ifreqFlags struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

func ioctlIfreq(fd int, req uintptr, ifr *ifreqFlags) error {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(ifr)))
	return errnoErr(e)
}
