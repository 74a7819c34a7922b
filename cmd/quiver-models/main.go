// Command quiver-models is the model drivers of Quiver as a program of
// their own: quiver starts it when `quiver run` or a [review] reviewer needs
// a model, and talks to it over a pipe (package driver/process). It links
// the providers' SDKs so that the quiver command does not: their package
// initialisation was most of quiver's start-up, paid by every `quiver call`.
//
// Install it beside quiver (`go install ./cmd/quiver ./cmd/quiver-models`),
// or name it with QUIVER_MODELS. It is not meant to be run by hand.
//
// `quiver-models catalog` prices a tool catalogue instead (package
// driver/catalog/measure): `quiver tools --tokens` sends it the catalogue on
// standard input, since the forms are the SDKs' and the tokenizer's
// vocabulary is large, and neither belongs in quiver.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/quiverkit/quiver/driver/catalog/measure"
	"github.com/quiverkit/quiver/driver/process"
	"github.com/quiverkit/quiver/driver/providers"
	"golang.org/x/term"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "catalog" {
		if err := measure.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "quiver-models:", err)
			os.Exit(1)
		}
		return
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprintln(os.Stderr, "quiver-models: the model drivers quiver starts for `quiver run` and [review]; not meant to be run by hand")
		os.Exit(2)
	}
	if err := process.Serve(context.Background(), os.Stdin, os.Stdout, providers.New); err != nil {
		fmt.Fprintln(os.Stderr, "quiver-models:", err)
		os.Exit(1)
	}
}
