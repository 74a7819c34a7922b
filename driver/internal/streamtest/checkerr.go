package streamtest

import (
	"errors"
	"strings"
	"testing"
)

// CheckErr fails t unless err is set, is (when given) in err's chain, and
// err's text mentions every string in has. The three drivers' bad-input
// tests share it.
func CheckErr(t testing.TB, err, is error, has []string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("error %v is not %v", err, is)
	}
	for _, h := range has {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("error %q does not mention %q", err, h)
		}
	}
}
