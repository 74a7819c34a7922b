//go:build unix

package shell

// ran tells the run's gate, when it keeps a record, that argv starts now.
func (st *runState) ran(argv []string) {
	if r, ok := st.spec.Gate.(Recorder); ok {
		r.Ran(argv)
	}
}
