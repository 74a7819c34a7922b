package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver/catalog/measure"
	"github.com/quiverkit/quiver/driver/process"
	"github.com/quiverkit/quiver/driver/providers"
)

// modelsName is the name under which the test binary is quiver-models
// (cmd/quiver-models), which the quiver command starts for `quiver run` and
// reviewers. Only the test binary links the providers' SDKs: the quiver
// binary must not (TestQuiverLinksNoModelSDK).
const modelsName = "quiver-models"

// serveModels is cmd/quiver-models' main.
func serveModels() {
	if len(os.Args) == 2 && os.Args[1] == "catalog" {
		if err := measure.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "quiver-models:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if err := process.Serve(context.Background(), os.Stdin, os.Stdout, providers.New); err != nil {
		fmt.Fprintln(os.Stderr, "quiver-models:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestQuiverLinksNoModelSDK: the quiver command starts without the model
// providers' SDKs, whose package initialisation was most of its start-up;
// they are linked by quiver-models alone. (google.golang.org/grpc, which
// genai brings, is no longer refused here: the OTLP/HTTP exporters' protobuf
// packages link it into quiver since issue 30.)
func TestQuiverLinksNoModelSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, sdk := range []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go", "google.golang.org/genai"} {
			if pkg == sdk || strings.HasPrefix(pkg, sdk+"/") {
				t.Errorf("quiver links %s", pkg)
			}
		}
	}
}

// grpcImporters are the only packages quiver links that may import gRPC:
// the OTLP/HTTP exporters' configuration, shared with their gRPC twins, and
// the collector's protobuf packages, which carry the gRPC service beside the
// request messages. Through them quiver links about 70 packages of gRPC,
// grpc-gateway and genproto, whose initialisation costs every command
// about 2.5 ms of CPU (docs/performance.md); nothing else may add to it.
var grpcImporters = map[string]bool{
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp/internal/otlpconfig": true,
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp/internal/oconf":    true,
	"go.opentelemetry.io/proto/otlp/collector/trace/v1":                                   true,
	"go.opentelemetry.io/proto/otlp/collector/metrics/v1":                                 true,
}

// TestQuiverLinksGRPCOnlyForOTLP: quiver links gRPC only because the
// official OTLP/HTTP exporters import it, and only through telemetry/otlp.
func TestQuiverLinksGRPCOnlyForOTLP(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	isGRPC := func(pkg string) bool {
		return pkg == "google.golang.org/grpc" || strings.HasPrefix(pkg, "google.golang.org/grpc/") ||
			strings.HasPrefix(pkg, "github.com/grpc-ecosystem/") || strings.HasPrefix(pkg, "google.golang.org/genproto/")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		if isGRPC(pkg) || grpcImporters[pkg] {
			continue
		}
		for _, imp := range imports {
			if isGRPC(imp) {
				t.Errorf("%s imports %s: quiver may link gRPC only through the OTLP exporters", pkg, imp)
			}
		}
	}
	if out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "github.com/quiverkit/quiver/telemetry/otlp").Output(); err != nil {
		t.Fatal(err)
	} else {
		for pkg := range grpcImporters {
			if !strings.Contains(string(out), pkg+"\n") {
				t.Errorf("%s is no longer linked by telemetry/otlp: drop it from grpcImporters", pkg)
			}
		}
	}
}

// TestModelsProgramIsFound: quiver-models is QUIVER_MODELS or the program
// beside quiver, never one found through PATH, and a command that needs no
// model does not need it.
func TestModelsProgramIsFound(t *testing.T) {
	srv, _ := openAIScript(t, chatText("Hi."))
	dir := workdir(t, map[string]string{"notes.txt": "n\n", "bin/quiver-models": "#!/bin/sh\necho planted > planted.txt\n"})
	os.Chmod(filepath.Join(dir, "bin/quiver-models"), 0o755)
	t.Setenv("PATH", filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("OPENAI_API_KEY", "k")

	t.Setenv(modelsEnv, "")
	r := runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "m", "Say hi.")
	if r.code != exitUsage || !strings.Contains(r.stderr, "quiver-models, which talks to the models, is not installed beside quiver") {
		t.Errorf("no quiver-models: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "planted.txt")); err == nil {
		t.Error("quiver started the quiver-models it found through PATH")
	}
	if r := runCLI(t, dir, "", "call", "read_file", `{"path":"notes.txt"}`); r.code != 0 {
		t.Errorf("call without quiver-models: exit %d, stderr %q", r.code, r.stderr)
	}

	t.Setenv(modelsEnv, "bin/quiver-models")
	r = runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "m", "Say hi.")
	if r.code != exitUsage || !strings.Contains(r.stderr, "want an absolute path") {
		t.Errorf("relative QUIVER_MODELS: exit %d, stderr %q", r.code, r.stderr)
	}

	// One the tools could have written holds no keys, under any scope.
	t.Setenv(modelsEnv, filepath.Join(dir, "bin/quiver-models"))
	for _, scope := range []string{"workspace-write", "read-only"} {
		r = runCLI(t, dir, "", "--write-scope", scope, "run", "--base-url", srv.URL, "--model", "m", "Say hi.")
		if r.code != exitUsage || !strings.Contains(r.stderr, "is where the tools may write") {
			t.Errorf("QUIVER_MODELS in the workspace, %s: exit %d, stderr %q", scope, r.code, r.stderr)
		}
	}
	// Other spellings of the same place: quiver's own working directory
	// (the workspace, here) through /proc, a link from outside into it,
	// dot-dot.
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/proc/self/cwd/bin/quiver-models", filepath.Join(link, "bin/quiver-models"),
		filepath.Join(dir, "bin", "..", "bin", "quiver-models")} {
		t.Setenv(modelsEnv, p)
		r = runCLI(t, dir, "", "run", "--base-url", srv.URL, "--model", "m", "Say hi.")
		if r.code != exitUsage || !strings.Contains(r.stderr, "is where the tools may write") {
			t.Errorf("QUIVER_MODELS=%s: exit %d, stderr %q", p, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "planted.txt")); err == nil {
		t.Error("quiver started a quiver-models from the workspace")
	}
}

// TestModelsProcessIsConfined: quiver-models runs in the sandbox, read-only
// whatever the write scope, with the network it needs. A stand-in that
// tries to write in the workspace and then execs the real program shows
// both: the write fails, the run reaches the (loopback) model.
func TestModelsProcessIsConfined(t *testing.T) {
	srv, _ := openAIScript(t, chatText("Hi."))
	dir := workdir(t, map[string]string{})
	standIn := filepath.Join(t.TempDir(), "quiver-models")
	script := "#!/bin/bash\necho escaped > " + filepath.Join(dir, "escaped.txt") + " 2>/dev/null\nexec -a quiver-models " + os.Getenv(modelsEnv) + "\n"
	if err := os.WriteFile(standIn, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(modelsEnv, standIn)
	t.Setenv("OPENAI_API_KEY", "k")
	r := runCLI(t, dir, "", "--write-scope", "workspace-write", "run", "--base-url", srv.URL, "--model", "m", "Say hi.")
	if r.code != 0 || r.stdout != "Hi.\n" {
		t.Fatalf("run through the stand-in: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "escaped.txt")); err == nil {
		t.Error("the model process wrote in the workspace")
	}
}
