//go:build unix

package shell

// Recorder is implemented by a command gate that wants to know which
// programs actually ran, for the record: the toolkit's per-call gate puts
// them in the call's audit record. A gate is asked about several forms of a
// command, and about commands that then never start; Ran is told once per
// program, with argv as it runs (after expansion), after the gate allowed
// it and just before it starts. Shell builtins (cd, echo, read...) start no
// program and are not reported; what eval, source or sh -c run through
// them is.
type Recorder interface {
	Ran(argv []string)
}

// ran tells the run's gate, when it keeps a record, that argv starts now.
func (st *runState) ran(argv []string) {
	if r, ok := st.spec.Gate.(Recorder); ok {
		r.Ran(argv)
	}
}
