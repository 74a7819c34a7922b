//go:build !linux

package sandboxtest

// InstallLauncher does nothing where there is no launcher.
func InstallLauncher(dir string) (string, error) { return "", nil }
