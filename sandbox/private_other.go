//go:build !unix

package sandbox

import "os"

// userTag names the user in the private directory's name: the temporary
// directory is the user's own here.
func userTag() string { return "user" }

// ownedByUser reports true: the temporary directory is the user's own here.
func ownedByUser(os.FileInfo) bool { return true }

// openToOthers reports false: modes say nothing of access here.
func openToOthers(os.FileInfo) bool { return false }
