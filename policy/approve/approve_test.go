//go:build linux

package approve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
)

var req = policy.Request{Tool: "write_file", Arguments: []byte(`{"path":"a.txt"}`), Risk: "high",
	Rule: "default = ask", Suggest: []string{"write_file(a.txt)"}}

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
		if !strings.Contains(out.String(), "write_file") || !strings.Contains(out.String(), "path: a.txt") || !strings.Contains(out.String(), "[y/N]") {
			t.Errorf("prompt %q does not show the tool and its arguments", out.String())
		}
	}
}

// attackCommand is the report's command: a comment holding ESC[2K and a
// carriage return that, printed raw, erase the line and show a fake
// command in its place; then a bidi override that reverses what follows.
const attackCommand = "echo '[core] fsmonitor = touch pwned' >> .git/config # \x1b[2K\r$ go test ./... \u202egnp.txt"

func execRequest(command string) policy.Request {
	args, _ := json.Marshal(map[string]any{"command": command, "env": []string{"GIT_CONFIG_GLOBAL=/tmp/evil"},
		"background": true, "timeout_secs": 600, "workdir": "src"})
	return viewed(policy.Request{Tool: "exec_command", Arguments: args, Risk: "high", Rule: "default = ask",
		Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: command}}})
}

// mustShowEverything checks what a person was shown of execRequest(command).
func mustShowEverything(t *testing.T, shown string) {
	t.Helper()
	for _, want := range []string{`# \x1b[2K\r$ go test ./...`, `\u202egnp.txt`, `env: ["GIT_CONFIG_GLOBAL=/tmp/evil"]`,
		"background: true", "timeout_secs: 600", "workdir: src", "control or invisible characters are shown as escapes"} {
		if !strings.Contains(shown, want) {
			t.Errorf("what a person was shown lacks %q:\n%s", want, shown)
		}
	}
	for _, raw := range []string{"\x1b", "\r", "\u202e"} {
		if strings.Contains(shown, raw) {
			t.Errorf("what a person was shown holds a raw %q", raw)
		}
	}
}

// TestPromptShowsExactlyWhatRuns feeds the terminal prompt (a real
// pseudo-terminal) the report's command: it is shown with its escapes
// visible, with every field of the call.
func TestPromptShowsExactlyWhatRuns(t *testing.T) {
	master, slave := openPTY(t)
	var out bytes.Buffer
	if _, err := master.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	a, err := Prompt{In: slave, Out: &out}.Approve(context.Background(), execRequest(attackCommand))
	if err != nil || a.Approved {
		t.Fatalf("answer n: %+v, %v", a, err)
	}
	mustShowEverything(t, out.String())
}

// TestPromptCutsLongCommandsVisibly: a 100 KB command is cut, saying how
// much is hidden, the fields after it are still shown, and s shows it all.
func TestPromptCutsLongCommandsVisibly(t *testing.T) {
	long := "true " + strings.Repeat("x", 100<<10) + " " + attackCommand
	master, slave := openPTY(t)
	var out bytes.Buffer
	if _, err := master.Write([]byte("s\ny\n")); err != nil {
		t.Fatal(err)
	}
	if a, err := (Prompt{In: slave, Out: &out}).Approve(context.Background(), execRequest(long)); err != nil || !a.Approved {
		t.Fatalf("answers s then y: %+v, %v", a, err)
	}
	shown := out.String()
	first, all, ok := strings.Cut(shown, "Allow? [s]how everything, [y/N] ")
	if !ok {
		t.Fatalf("the prompt did not offer to show everything: %q", shown[:min(len(shown), 300)])
	}
	hidden := len(long) - maxShownBytes
	if !strings.Contains(first, fmt.Sprintf("[... %d more bytes of the command not shown: answer s to see everything]", hidden)) {
		t.Errorf("the cut is not said with its size (%d bytes hidden)", hidden)
	}
	for _, want := range []string{"background: true", `env: ["GIT_CONFIG_GLOBAL=/tmp/evil"]`} {
		if !strings.Contains(first, want) {
			t.Errorf("a field is hidden by the cut: %q", want)
		}
	}
	mustShowEverything(t, all)
	if !strings.Contains(all, strings.Repeat("x", 100<<10)) {
		t.Error("s did not show the whole command")
	}
}
