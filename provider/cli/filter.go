package cli

import "strings"

// cleanPath turns a path a program printed, relative to the workspace
// root, into the engine's form ("./x" becomes "x").
func cleanPath(p string) string {
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}
