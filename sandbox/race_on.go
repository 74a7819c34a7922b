//go:build race

package sandbox

// raceEnvNames are the host variables passed on besides BaseEnvNames in
// builds with the race detector (the tests): GORACE, which the tests set
// so that the race-enabled Go programs they start as commands and servers
// do not sleep a second at every exit waiting for late race reports.
var raceEnvNames = []string{"GORACE"}
