package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the tool-name limit of the strictest model provider.
const maxName = 64

// ToolName returns the Quiver name of tool on server: SERVER__TOOL, with
// every character outside [a-zA-Z0-9_-] replaced by '_'. A name longer than
// 64 characters is cut and ends with '_' and 8 hex digits of a hash of the
// unsanitized SERVER__TOOL, so that long names that share a beginning stay
// apart.
func ToolName(server, tool string) string {
	raw := server + "__" + tool
	name := sanitize(raw)
	if len(name) > maxName {
		return withHash(name, raw)
	}
	return name
}

// hashSuffixLen is the length of the '_' and 8 hex digits that end a name
// cut to fit.
const hashSuffixLen = 1 + 8

// withHash cuts name to leave room for '_' and a hash of raw.
func withHash(name, raw string) string {
	sum := sha256.Sum256([]byte(raw))
	suffix := "_" + hex.EncodeToString(sum[:(hashSuffixLen-1)/2])
	if len(name) > maxName-hashSuffixLen {
		name = name[:maxName-hashSuffixLen]
	}
	return name + suffix
}

// namePrefix is how every name of server's tools begins: the sanitized
// "SERVER__", as far as a name cut to fit keeps it. Sanitizing maps each
// rune on its own, so the sanitized SERVER__TOOL begins with it, and a cut
// name keeps its first maxName-hashSuffixLen characters. The registry asks
// the provider only for names that begin with it ([Provider.MayOffer]).
func namePrefix(server string) string {
	p := sanitize(server + "__")
	return p[:min(len(p), maxName-hashSuffixLen)]
}

func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
