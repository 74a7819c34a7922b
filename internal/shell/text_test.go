package shell

import "testing"

func TestSafeText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text is unchanged", "hello\n\tworld\n", "hello\n\tworld\n"},
		{"UTF-8 is unchanged", "héllo 世界 🙂\n", "héllo 世界 🙂\n"},
		{"NUL bytes are escaped", "a\x00b", `a\x00b`},
		{"invalid bytes are escaped", "a\xffb\xc3", `a\xffb\xc3`},
		{"ANSI escapes are escaped", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"CRLF becomes LF", "a\r\nb\r\n", "a\nb\n"},
		{"lone CR is escaped", "10%\r20%", `10%\x0d20%`},
		{"DEL and C1 controls are escaped", "a\x7fb\u0085c", `a\x7fb\xc2\x85c`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SafeText([]byte(tt.in)); got != tt.want {
				t.Errorf("SafeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
