package tool

import "reflect"

// A Doner is a typed output that says the task is done: package tools'
// done returns one, and an agent loop stops when a call's result holds one
// ([IsDone]). The contract lives here so that a loop recognises it without
// linking the catalogue, and so that a host's own tool may end a task too.
type Doner interface {
	// DoneSummary returns what was done, in a few sentences, and whether
	// the output marks the task done.
	DoneSummary() (summary string, done bool)
}

// IsDone reports whether res ends the task, and its summary. It looks at the
// typed output ([Result].Output), which no provider and no trimming can
// forge or drop: a tool that merely prints "done" is not done, nor is an
// error result.
func IsDone(res Result) (summary string, ok bool) {
	d, isDoner := res.Output.(Doner)
	if !isDoner || res.IsError {
		return "", false
	}
	if v := reflect.ValueOf(d); v.Kind() == reflect.Pointer && v.IsNil() {
		return "", false
	}
	summary, ok = d.DoneSummary()
	return summary, ok
}
