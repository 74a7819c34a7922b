//go:build !unix

package workspacetest

import "os"

// touch sets p's modification time to ModTime; a link keeps its own (this
// platform has no lutimes), so glob_search's order may differ there.
func touch(p string, link bool) error {
	if link {
		return nil
	}
	return os.Chtimes(p, ModTime, ModTime)
}
