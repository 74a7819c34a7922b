package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/provider"
)

// TestPriorityOfFollowsTheProvidersOrder: the sources [tools] providers
// names trade their stock priorities, the first named taking the highest;
// the ones it leaves out keep theirs; with no list every source has its
// stock priority. The registry resolves each source at this priority
// (quiver.WithProviderAt).
func TestPriorityOfFollowsTheProvidersOrder(t *testing.T) {
	all := []string{config.KindBuiltin, config.KindCLI, config.KindCustom, config.KindScript, config.KindMCP}
	tests := []struct {
		name  string
		order []string
		want  []int // in the order of all
	}{
		{"no list", nil, []int{provider.PriorityBuiltin, provider.PriorityCLI, provider.PriorityCustom, provider.PriorityScript, provider.PriorityMCP}},
		{"builtin first", []string{config.KindBuiltin, config.KindCLI},
			[]int{provider.PriorityCLI, provider.PriorityBuiltin, provider.PriorityCustom, provider.PriorityScript, provider.PriorityMCP}},
		{"all reversed", []string{config.KindMCP, config.KindScript, config.KindCustom, config.KindCLI, config.KindBuiltin},
			[]int{provider.PriorityBuiltin, provider.PriorityCLI, provider.PriorityCustom, provider.PriorityScript, provider.PriorityMCP}},
		{"builtin over mcp", []string{config.KindBuiltin, config.KindScript, config.KindMCP},
			[]int{provider.PriorityMCP, provider.PriorityCLI, provider.PriorityCustom, provider.PriorityScript, provider.PriorityBuiltin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			for _, k := range tt.order {
				cfg.Tools.Providers = append(cfg.Tools.Providers, config.ProviderKind{Name: k})
			}
			var got []int
			for _, k := range all {
				got = append(got, priorityOf(cfg, k))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("priorities of %v (-want +got):\n%s", all, diff)
			}
		})
	}
}
