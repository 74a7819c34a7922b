package tool

// Ref is a typed reference to a tool by name: it carries the tool's input and
// output types, so that quiver.Call can be checked at compile time while the
// call itself still goes through the toolkit's whole pipeline (and whichever
// provider serves the name).
type Ref[In, Out any] struct {
	Name string
}

// RefTo returns a typed reference to the tool named name.
func RefTo[In, Out any](name string) Ref[In, Out] { return Ref[In, Out]{Name: name} }
