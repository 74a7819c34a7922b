package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// A status is read while registered, bounded to its last MaxStatusBytes at
// a character boundary, and gone once cleared; without a host SetStatus
// does nothing.
func TestProgressStatus(t *testing.T) {
	tool.SetStatus(context.Background(), func() string { panic("asked without a host") })()
	p := &tool.Progress{}
	ctx := tool.WithProgress(context.Background(), p)
	long := strings.Repeat("é", tool.MaxStatusBytes) + "END"
	for _, tt := range []struct{ status, want string }{
		{"building pkg/a", "building pkg/a"},
		{long, long[len(long)-tool.MaxStatusBytes+1:]},
	} {
		clear := tool.SetStatus(ctx, func() string { return tt.status })
		if got := p.Status(); got != tt.want {
			t.Errorf("Status() = %q..., want %q...", got[:min(20, len(got))], tt.want[:min(20, len(tt.want))])
		}
		clear()
		if got := p.Status(); got != "" {
			t.Errorf("after clear: %q", got)
		}
	}
}
