package quiver_test

import "github.com/quiverkit/quiver/provider"

func providerAlias(name, target string, renames map[string]string) provider.Alias {
	return provider.Alias{Name: name, Target: target, Renames: renames}
}
