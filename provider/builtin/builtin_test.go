package builtin_test

import (
	"testing"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/providertest"
)

// TestContract: the standard catalogue keeps the contract the registry
// relies on.
func TestContract(t *testing.T) {
	providertest.Run(t, func(*testing.T) provider.Provider { return builtin.New() })
}
