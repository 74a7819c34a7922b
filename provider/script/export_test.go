package script

// SetAfterTrustCheck sets the hook run between a pinned script's digest
// check and its start, and returns the function that puts the old one back.
func SetAfterTrustCheck(f func(path string)) (restore func()) {
	old := afterTrustCheck
	afterTrustCheck = f
	return func() { afterTrustCheck = old }
}
