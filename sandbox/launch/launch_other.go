//go:build !linux

// Package launch is the sandbox's launcher, which exists only on Linux: it
// confines a process with Landlock and namespaces. Elsewhere the package is
// empty, so that a binary importing it (cmd/quiver-sandbox) still builds;
// package sandbox refuses to confine there.
package launch
