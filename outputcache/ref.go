package outputcache

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
)

// Ref ids are "out_" followed by 26 lowercase base32 characters: 128 bits
// from crypto/rand. That makes them unique per store without coordination
// (providers reuse tool-call ids, so those cannot serve), safe as file names
// on every file system (one case, no separators), and unguessable: one MCP
// client cannot read another's outputs by counting.
const (
	refPrefix = "out_"
	refLen    = len(refPrefix) + 26
)

var refEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewRef returns a fresh ref id.
func NewRef() string {
	var b [16]byte
	rand.Read(b[:]) // never fails: crypto/rand crashes the program rather than return weak bytes
	return refPrefix + refEncoding.EncodeToString(b[:])
}

// ValidRef reports whether s has the shape of a ref id. Stores check it
// before any lookup, so that a path such as ../../etc/passwd never reaches a
// file system call.
func ValidRef(s string) bool {
	if len(s) != refLen || !strings.HasPrefix(s, refPrefix) {
		return false
	}
	for _, c := range s[len(refPrefix):] {
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// checkRef returns ErrMalformedRef, wrapped with a quoted, shortened ref, if
// ref is not a ref id.
func checkRef(ref string) error {
	if ValidRef(ref) {
		return nil
	}
	shown := ref
	if len(shown) > 80 {
		shown = shown[:80] + "..."
	}
	return fmt.Errorf("%q: %w (ref ids look like out_ followed by 26 letters and digits)", shown, ErrMalformedRef)
}
