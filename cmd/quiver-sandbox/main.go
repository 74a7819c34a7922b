// Command quiver-sandbox is the sandbox's launcher as a program of its own:
// the same code that the quiver binary (or any binary linking package
// sandbox) runs when it re-executes itself to confine a process, without
// that binary's package initialisation. Installed next to quiver (`go
// install ./cmd/quiver ./cmd/quiver-sandbox`), it makes every confined
// process start faster; without it Quiver re-executes itself, which is
// slower and as safe. Quiver starts it only from beside its own executable,
// and only where no confined process could have written it (see
// sandbox/launch's TrustedSibling); nothing in the environment names it.
//
// It is not meant to be run by hand: `quiver sandbox -- CMD` is.
package main

import (
	"fmt"
	"os"

	// The launcher runs from this package's init when Quiver starts this
	// program with a launch spec; main is reached only without one.
	_ "github.com/quiverkit/quiver/sandbox/launch"
)

func main() {
	fmt.Fprintln(os.Stderr, "quiver-sandbox: the sandbox's launcher; run a command confined with `quiver sandbox -- CMD`")
	os.Exit(2)
}
