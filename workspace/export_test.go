package workspace

// SetBeforeRename installs the test hook that runs between fsync and rename.
func SetBeforeRename(f func(tmp string) error) (restore func()) {
	old := beforeRename
	beforeRename = f
	return func() { beforeRename = old }
}
