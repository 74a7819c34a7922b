package outputcache_test

import (
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/outputcache/storetest"
)

func TestMemoryStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) outputcache.Store { return outputcache.NewMemoryStore(outputcache.MemoryOptions{}) })
}

func TestSpilledMemoryStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) outputcache.Store {
		return outputcache.NewMemoryStore(outputcache.MemoryOptions{SpillAt: 64, TempDir: t.TempDir()})
	})
}

func TestDirStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) outputcache.Store {
		s, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: filepath.Join(t.TempDir(), "outputs")})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
