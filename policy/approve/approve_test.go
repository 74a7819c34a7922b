//go:build linux

package approve

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/quiverkit/quiver/policy"
)

var req = policy.Request{Tool: "write_file", Arguments: []byte(`{"path":"a.txt"}`), Risk: "high",
	Rule: "default = ask", Suggest: "write_file(a.txt)"}

func TestAutoAndDeny(t *testing.T) {
	if a, err := Auto.Approve(context.Background(), req); err != nil || !a.Approved {
		t.Errorf("Auto = %+v, %v", a, err)
	}
	a, err := Deny.Approve(context.Background(), req)
	if err != nil || a.Approved || !strings.Contains(a.Reason, "write_file(a.txt)") {
		t.Errorf("Deny = %+v, %v", a, err)
	}
}

func TestPromptWithoutTerminalRefusesAndSaysHow(t *testing.T) {
	devnull, _ := os.Open(os.DevNull) // a character device, but not a terminal
	defer devnull.Close()
	var out bytes.Buffer
	a, err := Prompt{In: devnull, Out: &out}.Approve(context.Background(), req)
	if err != nil || a.Approved || !strings.Contains(a.Reason, "--yes") || !strings.Contains(a.Reason, "write_file(a.txt)") {
		t.Errorf("Prompt = %+v, %v", a, err)
	}
	if out.Len() != 0 {
		t.Errorf("prompted with nobody to answer: %q", out.String())
	}
}

// openPTY returns the two ends of a pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n uint32
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func TestPromptOnATerminal(t *testing.T) {
	for answer, want := range map[string]bool{"y\n": true, "yes\n": true, "n\n": false, "\n": false} {
		master, slave := openPTY(t)
		var out bytes.Buffer
		if _, err := master.Write([]byte(answer)); err != nil {
			t.Fatal(err)
		}
		a, err := Prompt{In: slave, Out: &out}.Approve(context.Background(), req)
		if err != nil || a.Approved != want {
			t.Errorf("answer %q: %+v, %v", answer, a, err)
		}
		if !strings.Contains(out.String(), "write_file") || !strings.Contains(out.String(), `"path": "a.txt"`) || !strings.Contains(out.String(), "[y/N]") {
			t.Errorf("prompt %q does not show the tool and its arguments", out.String())
		}
	}
}
