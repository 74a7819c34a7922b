//go:build unix

package tools

// Unavailable names the built-in tools that cannot work on this system, each
// with the reason; [All] leaves them out. On unix every tool works.
func Unavailable() map[string]string { return nil }
