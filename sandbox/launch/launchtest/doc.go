// Package launchtest installs the sandbox's launcher for a package's tests,
// as a user installs it beside quiver (see [InstallLauncher]).
//
// It is a package of its own, not part of sandbox/sandboxtest, because the
// launcher's own tests use sandboxtest.
package launchtest
