package quiver_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestEveryCodeInTheTables: each error code package tool declares has a
// row, with its one meaning, in docs/design.md's table (the one table the
// README links), so that no code is answered that a host cannot look
// up (issue 33: NETWORK_DENIED).
func TestEveryCodeInTheTables(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "tool/error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == 1 {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
				if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					codes = append(codes, s)
				}
			}
		}
		return true
	})
	if len(codes) < 10 {
		t.Fatalf("found %d codes in tool/error.go: %v", len(codes), codes)
	}
	for _, doc := range []string{"docs/design.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codes {
			// A row may hold two codes: | `TIMEOUT` / `CANCELLED` |.
			if !strings.Contains(string(b), "| `"+c+"` ") && !strings.Contains(string(b), " `"+c+"` |") {
				t.Errorf("%s has no table row for %s", doc, c)
			}
		}
	}
}
