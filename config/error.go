package config

import "fmt"

// Position is a place in a configuration file; Line and Col count from 1
// and are 0 when unknown.
type Position struct {
	File      string `json:"file"`
	Line, Col int    `json:"-"`
}

// String is file:line:col, or the file alone when the place is unknown.
func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem with a configuration file, at its key or value when
// the decoder or the scan of the file knows where: what `quiver config
// check --json` reports field by field.
type Error struct {
	Pos Position
	Msg string // a sentence about the file, without the position
	Err error  // the cause, when there is one
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
