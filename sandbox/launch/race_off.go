//go:build !race

package launch

// RaceEnv is empty in builds without the race detector: the launcher
// starts with its spec alone (see race_on.go).
var RaceEnv []string
