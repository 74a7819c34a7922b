//go:build !unix

package workspace

import (
	"errors"
	"os"
)

// lock fails: without flock a temporary file cannot tell whether its writer
// lives, so writes keep no lock and stale temporary files are never swept
// (createTemp and removeIfUnlocked treat the failure so).
func lock(*os.File, bool) error { return errors.ErrUnsupported }

// openNoFollow adds nothing: os.Root already refuses links that leave the
// root, and nothing is opened to test a lock here.
const openNoFollow = 0
