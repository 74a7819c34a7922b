package workspace_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Resolve names the file a path reaches once its symbolic links are
// followed, which is what policy rules are matched against: a link to .env
// is .env, and a file not created yet is where it will be. A path that
// leaves the workspace, by ".." or by a link, is refused with
// SANDBOX_VIOLATION, and so is every read or write through it.
func ExampleWorkspace_Resolve() {
	dir, err := os.MkdirTemp("", "workspace-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=secret\n"), 0o600)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.Symlink("../.env", filepath.Join(dir, "src", "envlink"))
	os.Symlink("../..", filepath.Join(dir, "src", "up"))

	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ws.Close()

	for _, p := range []string{"src/envlink", "src/./new.go", "../outside.txt", "src/up/etc/passwd"} {
		resolved, err := ws.Resolve(p)
		var te *tool.Error
		switch {
		case err == nil:
			fmt.Printf("%-18s -> %s\n", p, resolved)
		case errors.As(err, &te):
			fmt.Printf("%-18s refused: %s\n", p, te.Code)
		default:
			log.Fatal(err)
		}
	}
	_, err = ws.Open("src/up/etc/passwd")
	fmt.Println("open through the link refused:", errors.As(err, new(*tool.Error)))
	// Output:
	// src/envlink        -> .env
	// src/./new.go       -> src/new.go
	// ../outside.txt     refused: SANDBOX_VIOLATION
	// src/up/etc/passwd  refused: SANDBOX_VIOLATION
	// open through the link refused: true
}
