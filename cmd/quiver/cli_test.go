package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/sandbox/launch/launchtest"
)

// quiverBin is the quiver command these tests run: the CLI is tested as a
// user runs it, as a process. It is this test binary, started through a
// hard link named cliName, which TestMain turns into the command: no second
// build of the program (the suite's slowest step), and the command runs
// under the race detector whenever the tests do.
//
// Beside it lies quiver-sandbox, the launcher as the README installs it,
// built without the race detector: every confined start runs it instead of
// re-executing this binary, whose race runtime and package initialisation
// cost four times the CPU of the launcher's own work, hundreds of times
// per run. The launcher's code runs under the race detector in its own
// package's tests, and the re-executed launcher in the root package's.
var quiverBin string

// cliName is the name under which the test binary is the quiver command.
const cliName = "quiver"

func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case cliName:
		reportHeap()
		main() // exits
	case modelsName:
		serveModels() // exits
	}
	dir, err := os.MkdirTemp("", "quiver-cli")
	if err != nil {
		panic(err)
	}
	if err := installCommands(dir); err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	quickRaceExit()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// installCommands lays out dir as an installation: quiver (this test
// binary, linked, not symlinked, so that it finds what lies beside the link
// as its executable's siblings) and quiver-sandbox beside it; quiver-models
// (the same binary) elsewhere, which quiver is told through modelsEnv.
func installCommands(dir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	quiverBin = filepath.Join(dir, cliName)
	if err := linkOrCopy(exe, quiverBin); err != nil {
		return err
	}
	// Not beside quiver: TestModelsProgramIsFound tells quiver where it is,
	// or that there is none.
	models := filepath.Join(dir, "models", modelsName)
	if err := os.Mkdir(filepath.Dir(models), 0o700); err != nil {
		return err
	}
	if err := os.Symlink(exe, models); err != nil {
		return err
	}
	os.Setenv(modelsEnv, models)
	_, err = launchtest.InstallLauncher(dir)
	return err
}

// linkOrCopy makes dst the file src: a hard link where both lie on one
// file system, else a copy.
func linkOrCopy(src, dst string) error {
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// quickRaceExit tells the race-enabled commands the tests start not to
// wait a second at exit for late race reports (GORACE atexit_sleep_ms): the
// tests start hundreds of them, and each ends only after its goroutines.
func quickRaceExit() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}

type cliResult struct {
	stdout, stderr string
	code           int
}

// configHome is the user configuration home of the commands run in dir:
// beside the workspace, never in it (Quiver refuses a user configuration
// directory inside the workspace), empty unless a test trusts dir.
func configHome(dir string) string {
	return filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".config-home")
}

// cliEnv is the environment of the commands run in dir: no configuration
// but dir's own and what its test trusted, a cache of its own.
func cliEnv(dir string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+configHome(dir), "XDG_CACHE_HOME="+filepath.Join(dir, ".cache"))
}

// trust records dir's project files as they are now as trusted in its
// configuration home, as `quiver trust` would: its quiver.toml and scripts
// are then loaded whole.
func trust(t *testing.T, dir string) {
	t.Helper()
	userDir := filepath.Join(configHome(dir), "quiver")
	p, err := config.ReadProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := config.ReadTrust(userDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Add(p, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// quiver runs the binary in dir, with no configuration but dir's own.
func runCLI(t *testing.T, dir string, stdin string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(quiverBin, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(dir)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return cliResult{out.String(), errb.String(), code}
}

// startPiped starts the binary in dir with args, with no configuration but
// dir's own, its standard input and output piped to the test and its
// standard error the test's: for a test that talks to a running quiver or
// ends it itself. The test's cleanup kills it.
func startPiped(t *testing.T, dir string, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser) {
	t.Helper()
	cmd = exec.Command(quiverBin, args...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, cliEnv(dir), os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, stdin, stdout
}

// workdir makes a workspace with files. When they include project files
// (quiver.toml, quorum.toml, .quiver/tools), the workspace is trusted as
// written, as its operator would after reading them: a test that changes
// them afterwards calls trust again, and the tests of projects nobody
// trusted use plantedWorkdir.
func workdir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := plantedWorkdir(t, files)
	if p, err := config.ReadProject(dir); err != nil || !p.Empty() {
		trust(t, dir)
	}
	return dir
}

// plantedWorkdir makes a workspace with files that nobody trusted, as a
// cloned repository or an agent's command leaves them.
func plantedWorkdir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCallReadFile(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"go.mod": "module example\n\ngo 1.26\n"})
	r := runCLI(t, dir, "", "call", "read_file", `{"path":"go.mod"}`)
	if r.code != 0 || r.stdout != "     1\tmodule example\n     2\t\n     3\tgo 1.26\n" {
		t.Fatalf("call read_file: code %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, dir, `{"path":"go.mod","limit":1}`, "call", "read_file", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "     1\tmodule example\n(showing lines 1-1 of 3") {
		t.Fatalf("arguments from stdin: %+v", r)
	}
}

func TestCallErrorCodes(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{
		"notes.txt": "x\n",
		"quiver.toml": `[policy]
deny = ["read_file(secret.txt)", "list_files"]
ask = ["write_file"]
`,
		"secret.txt": "s\n",
	})
	cases := []struct {
		name string
		args []string
		code string
	}{
		{"unknown tool", []string{"call", "nope", "{}"}, "TOOL_NOT_FOUND"},
		{"denied tool", []string{"call", "list_files", "{}"}, "TOOL_NOT_ALLOWED"},
		{"denied path", []string{"call", "read_file", `{"path":"secret.txt"}`}, "TOOL_NOT_ALLOWED"},
		{"ask without a terminal", []string{"call", "write_file", `{"path":"n.txt","content":"x"}`}, "APPROVAL_DENIED"},
		{"a file spelled as a directory, refused before the ask", []string{"call", "write_file", `{"path":"n.txt/","content":"x"}`}, "INVALID_ARGUMENTS"},
		{"array arguments", []string{"call", "read_file", `[1]`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"string arguments", []string{"call", "read_file", `"x"`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"number arguments", []string{"call", "read_file", `123`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"null arguments", []string{"call", "read_file", `null`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"boolean arguments", []string{"call", "read_file", `true`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"not JSON", []string{"call", "read_file", `{path:`}, "INVALID_TOOL_ARGUMENTS_TYPE"},
		{"missing field", []string{"call", "read_file", `{}`}, "INVALID_ARGUMENTS"},
		{"wrong type", []string{"call", "read_file", `{"path":1}`}, "INVALID_ARGUMENTS"},
		{"extra field", []string{"call", "read_file", `{"path":"notes.txt","x":1}`}, "INVALID_ARGUMENTS"},
		{"out of range", []string{"call", "read_file", `{"path":"notes.txt","limit":0}`}, "INVALID_ARGUMENTS"},
		{"escape", []string{"call", "read_file", `{"path":"../../etc/passwd"}`}, "SANDBOX_VIOLATION"},
		{"missing file", []string{"call", "read_file", `{"path":"absent"}`}, "NOT_FOUND"},
	}
	// The group returns once its parallel cases are done, before the check
	// that none of them wrote.
	t.Run("codes", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				checkCallErrorCode(t, dir, c.args, c.code)
			})
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "n.txt")); err == nil {
		t.Error("a refused write_file wrote its file")
	}
	t.Run("the ask refusal names --yes and the rule that would pass it", func(t *testing.T) {
		r := runCLI(t, dir, "", "call", "edit", `{"path":"n.txt","old_string":"","new_string":"x"}`)
		if !strings.Contains(r.stderr, "--yes") || !strings.Contains(r.stderr, `allow it with the rule "edit(n.txt)"`) {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	// An ask rule comes before every allow rule: none is offered, and the
	// refusal says which rule asks (issue 33).
	t.Run("the ask refusal under an ask rule names the rule, not an allow rule", func(t *testing.T) {
		r := runCLI(t, dir, "", "call", "write_file", `{"path":"n.txt","content":"x"}`)
		if !strings.Contains(r.stderr, "--yes") || !strings.Contains(r.stderr, `no allow rule would pass it: the rule "write_file" asks about it`) {
			t.Errorf("stderr %q", r.stderr)
		}
	})
	t.Run("a misspelled path names its field", func(t *testing.T) {
		args := []string{"call", "write_file", `{"path":"n.txt/","content":"x"}`}
		if r := runCLI(t, dir, "", args...); !strings.Contains(r.stderr, `INVALID_ARGUMENTS: field "path": "n.txt/" names a directory`) {
			t.Errorf("stderr %q", r.stderr)
		}
		var out callJSON
		j := runCLI(t, dir, "", append([]string{"--json"}, args...)...)
		if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || out.Error == nil || out.Error.Details["field"] != "path" {
			t.Errorf("--json: %v %q", err, j.stdout)
		}
	})
}

// checkCallErrorCode runs quiver call with args, plain and with --json, and
// checks both report the error code.
func checkCallErrorCode(t *testing.T, dir string, args []string, code string) {
	t.Helper()
	r := runCLI(t, dir, "", args...)
	if r.code != 1 || !strings.Contains(r.stderr, code+": ") {
		t.Fatalf("code %d, stderr %q; want exit 1 and %s", r.code, r.stderr, code)
	}
	j := runCLI(t, dir, "", append([]string{"--json"}, args...)...)
	var out callJSON
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil || j.code != 1 {
		t.Fatalf("--json: exit %d, %v: %q", j.code, err, j.stdout)
	}
	if !out.IsError || out.Error == nil || string(out.Error.Code) != code || out.Error.Tool != args[1] {
		t.Errorf("--json = %+v", out)
	}
	if !strings.HasPrefix(out.Content, "Error executing tool "+args[1]+": "+code) {
		t.Errorf("content %q", out.Content)
	}
}

func TestCallJSONSuccess(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "hello\n"})
	r := runCLI(t, dir, "", "--json", "call", "read_file", `{"path":"a.txt"}`)
	var out struct {
		callJSON
		Output map[string]any `json:"output"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v %q", r.code, err, r.stdout)
	}
	if out.IsError || out.Error != nil || out.Content != "     1\thello" || out.Output["total_lines"] != 1.0 || out.Provider != "builtin" {
		t.Errorf("%+v", out)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"bad.toml": "[policy]\ndefault = \"sometimes\"\n", "unknown.toml": "[workspace]\nroots = \".\"\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, "unknown command"},
		{[]string{"call"}, "quiver call accepts between 1 and 2 arg(s), received 0\nusage: quiver call NAME [ARGS_JSON | -] [flags]"},
		{[]string{"run"}, "usage: quiver run TASK [flags]"},
		{[]string{"config", "check", "extra"}, "usage: quiver config check"},
		{[]string{"--nope", "tools"}, "unknown flag"},
		{[]string{"--config", "bad.toml", "tools"}, "bad.toml:2:11: decision \"sometimes\""},
		{[]string{"--config", "unknown.toml", "config", "check"}, "unknown.toml:2:1: unknown key \"workspace.roots\""},
		{[]string{"--write-scope", "everything", "tools"}, "--write-scope"},
		{[]string{"--config", "absent.toml", "tools"}, "absent.toml"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, dir, "", c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
			}
		})
	}
	if r := runCLI(t, dir, "", "config", "check"); r.code != 0 || !strings.Contains(r.stdout, "defaults") {
		t.Errorf("config check without a file: %+v", r)
	}
	v := runCLI(t, dir, "", "version")
	if v.code != 0 || !strings.HasPrefix(v.stdout, "quiver ") {
		t.Errorf("version: %+v", v)
	}
	if r := runCLI(t, dir, "", "--version"); r.code != 0 || r.stdout != v.stdout {
		t.Errorf("--version: %+v; want what `quiver version` prints, %q", r, v.stdout)
	}
}

func TestToolsJSON(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"quiver.toml": "[policy]\ndeny = [\"write_file\"]\n"})
	r := runCLI(t, dir, "", "tools", "--json")
	var out struct {
		Tools []toolJSON `json:"tools"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d %v", r.code, err)
	}
	found := map[string]toolJSON{}
	for _, tl := range out.Tools {
		if tl.InputSchema == nil || tl.InputSchema.Type != "object" || tl.Provider == "" {
			t.Errorf("%s: schema %v provider %q", tl.Name, tl.InputSchema, tl.Provider)
		}
		found[tl.Name] = tl
	}
	if rf, ok := found["read_file"]; !ok || !rf.Allowed || rf.InputSchema.Properties["path"] == nil {
		t.Errorf("read_file entry %+v", rf)
	}
	if wf, ok := found["write_file"]; ok && wf.Allowed {
		t.Error("a denied tool is listed as allowed")
	}
	human := runCLI(t, dir, "", "tools")
	if human.code != 0 || !strings.Contains(human.stdout, "read_file") || !strings.Contains(human.stdout, "PROVIDER") {
		t.Errorf("tools: %+v", human)
	}
}

func TestAuditAndWriteScope(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "x\n"})
	log := filepath.Join(dir, "audit.jsonl")
	runCLI(t, dir, "", "--audit", log, "call", "read_file", `{"path":"a.txt"}`)
	runCLI(t, dir, "", "--audit", log, "call", "nope", `{}`)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit lines: %q", b)
	}
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["tool"] != "read_file" || first["outcome"] != "ok" || first["decision"] != "allow" || first["provider"] != "builtin" || second["outcome"] != "TOOL_NOT_FOUND" {
		t.Errorf("audit %v / %v", first, second)
	}
	r := runCLI(t, dir, "", "--write-scope", "read-only", "--yes", "call", "write_file", `{"path":"b.txt","content":"x"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "TOOL_NOT_ALLOWED") {
		t.Errorf("read-only write: %+v", r)
	}
}
