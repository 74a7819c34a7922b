// Package e2e runs the quiver binary against real MCP peers: the MCP
// Inspector's CLI, the MCP conformance suite, and MCP clients configured
// as the documentation says. The peers are installed by scripts/mcp-peers;
// with CI=true a missing peer fails the tests, elsewhere they are skipped
// with a message naming the script.
package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/internal/mcppeers"
	"github.com/quiverkit/quiver/sandbox/launch/launchtest"
)

// quiverBin is the quiver binary, built once for the package's tests.
var quiverBin string

// repoRoot is the module's root directory.
var repoRoot string

func TestMain(m *testing.M) {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	repoRoot = filepath.Dir(wd)
	dir, err := os.MkdirTemp("", "quiver-e2e")
	if err != nil {
		panic(err)
	}
	quiverBin = filepath.Join(dir, "quiver")
	args := append([]string{"build"}, sameBuildFlags()...)
	build := exec.Command("go", append(args, "-o", quiverBin, "./cmd/quiver")...)
	build.Dir = repoRoot
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("build quiver: " + err.Error())
	}
	// quiver-sandbox beside quiver, as the README installs it.
	if _, err := launchtest.InstallLauncher(dir); err != nil {
		panic(err)
	}
	quickRaceExit()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sameBuildFlags returns the flags this test binary was built with that
// change how packages compile (-race): built alike, the quiver binary reuses
// every package the test run compiled already, instead of compiling the
// whole program a second time, and runs under the race detector when the
// tests do.
func sameBuildFlags() []string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			flags = append(flags, "-race")
		}
	}
	return flags
}

// quickRaceExit tells a race-enabled quiver not to wait a second at exit
// for late race reports (GORACE atexit_sleep_ms): the tests start it many
// times, and each start is waited for.
func quickRaceExit() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}

func inspector(t *testing.T) string {
	return mcppeers.Need(t, "mcp/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js")
}

// conformance returns Node 22 and the conformance suite's entry point.
func conformance(t *testing.T) (node, suite string) {
	return mcppeers.Need(t, "conformance/node_modules/.bin/node"), mcppeers.Need(t, "conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js")
}

// workspace makes a workspace folder with the given files and an isolated
// configuration home beside it, in which its project files (quiver.toml,
// .quiver/tools) are trusted as written, as their operator would.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := untrustedWorkspace(t, files)
	p, err := config.ReadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Empty() {
		return dir
	}
	tr, err := config.ReadTrust(filepath.Join(configHome(dir), "quiver"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Add(p, time.Now()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// configHome is the user configuration home of the binaries run in dir:
// beside the workspace, never in it.
func configHome(dir string) string {
	return filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".config-home")
}

// untrustedWorkspace makes a workspace folder whose files nobody trusted.
func untrustedWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// env is the environment the binaries run in: no user configuration, and
// the trust its test recorded.
func env(dir string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+configHome(dir), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"))
}

var servingRE = regexp.MustCompile(`serving MCP \(streamable HTTP\) on (http://\S+)`)

// serveHTTP starts `quiver serve --http 127.0.0.1:0` in dir and returns its
// URL. It is stopped with SIGTERM when the test ends, and must exit 0.
func serveHTTP(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(quiverBin, append([]string{"serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env(dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	var log strings.Builder
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { <-logDone; done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("quiver serve --http did not exit cleanly on SIGTERM: %v\n%s", err, log.String())
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Errorf("quiver serve --http did not exit within 20s of SIGTERM")
		}
	})
	select {
	case u := <-urls:
		return u
	case <-time.After(20 * time.Second):
		t.Fatalf("quiver serve --http did not start:\n%s", log.String())
	}
	return ""
}

// run runs a command with a deadline and returns its output.
func run(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env(dir)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: no result within %s\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), timeout, out.String(), errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}
