//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
)

// sealProgram returns a copy of content, as name's base name, in a
// directory of its own inside this process's own directory ([OwnDir]), and
// the function that removes it. Only the user can write there; nothing confines
// processes on these systems anyway (see Check).
func sealProgram(name string, content []byte) (*os.File, string, func(), error) {
	private, err := OwnDir()
	if err != nil {
		return nil, "", nil, err
	}
	dir, err := os.MkdirTemp(private, "program-")
	if err != nil {
		return nil, "", nil, fmt.Errorf("sandbox: copying the program: %w", err)
	}
	path := filepath.Join(dir, filepath.Base(name))
	if err := os.WriteFile(path, content, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, "", nil, fmt.Errorf("sandbox: copying the program: %w", err)
	}
	return nil, path, func() { os.RemoveAll(dir) }, nil
}
