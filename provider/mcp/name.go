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

// withHash cuts name to leave room for '_' and a hash of raw.
func withHash(name, raw string) string {
	sum := sha256.Sum256([]byte(raw))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name) > maxName-len(suffix) {
		name = name[:maxName-len(suffix)]
	}
	return name + suffix
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
