//go:build !race

package sandbox

// raceEnvNames is empty in builds without the race detector (see
// race_on.go).
var raceEnvNames []string
