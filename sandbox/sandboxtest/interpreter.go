package sandboxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// directPython puts first on PATH, once per process, the directory of the
// interpreter that PATH's python3 runs, when PATH's python3 is a version
// manager's shim (pyenv's is a shell script that takes ten times the
// interpreter's own start-up to choose it). The escape tables start python
// dozens of times, each through every runner; with the shim in front the
// suite spent most of their time in it. The attempts still run the same
// interpreter, found through PATH as a model's command finds it.
var directPython = sync.OnceFunc(func() {
	shim, err := exec.LookPath("python3")
	if err != nil {
		return // the lines that need python fail, and say so
	}
	out, err := exec.Command(shim, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return
	}
	real := strings.TrimSpace(string(out))
	if real == "" || !filepath.IsAbs(real) || sameFile(real, shim) {
		return
	}
	os.Setenv("PATH", filepath.Dir(real)+string(os.PathListSeparator)+os.Getenv("PATH"))
})

// sameFile reports whether a and b are one file, links followed.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
