//go:build !unix

package sandbox

import (
	"errors"
	"os"
)

// lockFile fails: without flock a process cannot tell whether another
// lives, so own directories are never swept (see OwnDir).
func lockFile(*os.File, bool) error { return errors.ErrUnsupported }

// openNoFollow adds nothing here.
const openNoFollow = 0
