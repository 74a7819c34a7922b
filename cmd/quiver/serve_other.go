//go:build !unix

package main

import "os"

// reserveStdout returns standard output for the protocol; where descriptors
// cannot be duplicated, Go's own os.Stdout is pointed at standard error.
func reserveStdout() (*os.File, error) {
	out := os.Stdout
	os.Stdout = os.Stderr
	return out, nil
}
