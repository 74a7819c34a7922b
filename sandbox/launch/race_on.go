//go:build race

package launch

// RaceEnv is the one variable a launcher built with the race detector
// starts with besides its spec: it tells the race runtime not to sleep a
// second at exit, waiting for late reports, as it does when GORACE says
// nothing. The launcher ends with every call, so that second was every
// sandboxed call's in race-enabled builds (the tests). Release builds
// start the launcher with the spec alone.
var RaceEnv = []string{"GORACE=atexit_sleep_ms=0"}
