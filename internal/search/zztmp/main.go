package main

import (
	"context"
	"fmt"
	"os"

	"github.com/quiverkit/quiver/internal/search"
	"github.com/quiverkit/quiver/workspace"
)

func main() {
	ws, _ := workspace.Open(os.Args[1], workspace.Options{})
	mode := search.ModeContent
	if len(os.Args) > 4 && os.Args[4] == "files" { mode = search.ModeFiles }
	m, err := search.Compile(os.Args[2], search.PatternOptions{Fixed: os.Args[3] != "re", IgnoreCase: os.Args[3] == "i"})
	if err != nil { panic(err) }
	c := search.NewCollector(mode, 100000, 0)
	_, err = search.Grep(context.Background(), ws, search.GrepRequest{Matcher: m, Start: "."}, c)
	if err != nil { panic(err) }
	r := c.Result()
	fmt.Println(r.TotalMatches, r.TotalFiles)
}
