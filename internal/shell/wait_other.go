//go:build unix && !linux

package shell

import "os"

// killPipeHolders does nothing here: finding who holds a pipe needs /proc.
func killPipeHolders(*os.File) {}

// killTTYHolders does nothing here: finding who holds a terminal needs
// /proc.
func killTTYHolders(*TTY) {}
