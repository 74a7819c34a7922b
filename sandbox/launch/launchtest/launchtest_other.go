//go:build !linux

package launchtest

// InstallLauncher does nothing where there is no launcher.
func InstallLauncher(dir string) (string, error) { return "", nil }
