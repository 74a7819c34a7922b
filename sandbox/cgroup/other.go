//go:build !linux

package cgroup

import (
	"errors"
	"syscall"
)

// Host is where Quiver would make its calls' cgroups: nowhere, off Linux.
type Host struct{}

// Detect reports that cgroups are Linux's.
func Detect() *Host { return &Host{} }

// Version is None off Linux.
func (h *Host) Version() Version { return None }

// Why says why no cgroup holds the limits.
func (h *Host) Why() string { return "cgroups are Linux's" }

// Memory reports false: nothing bounds a call's memory here.
func (h *Host) Memory() bool { return false }

// New fails: there are no cgroups here.
func (h *Host) New(Limits) (*Call, error) { return nil, errors.New("cgroup: cgroups are Linux's") }

// Call is never made off Linux.
type Call struct{}

// Memory reports false.
func (c *Call) Memory() bool { return false }

// Held reports false.
func (c *Call) Held() bool { return false }

// Prepare does nothing.
func (c *Call) Prepare(*syscall.SysProcAttr) {}

// Place does nothing.
func (c *Call) Place(int) error { return nil }

// Kill does nothing.
func (c *Call) Kill() {}

// Close does nothing.
func (c *Call) Close() (Events, error) { return Events{}, nil }
