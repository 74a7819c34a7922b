package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/quiverkit/quiver/schema"
)

// A tool's input schema is inferred from its Go type, constraint tags
// included, and compiled once; each call's arguments are then checked
// against it, and a failure names the field at fault.
func ExampleCompile() {
	type searchInput struct {
		Pattern string `json:"pattern" jsonschema:"the regular expression" minLength:"1"`
		Limit   int    `json:"limit,omitempty" minimum:"1" maximum:"100"`
		Mode    string `json:"mode,omitempty" enum:"lines,files"`
	}
	s, err := schema.Infer[searchInput]()
	if err != nil {
		log.Fatal(err)
	}
	v, err := schema.Compile(s)
	if err != nil {
		log.Fatal(err)
	}
	js, _ := json.Marshal(s)
	fmt.Println(string(js))

	for _, args := range []string{
		`{"pattern": "func New", "limit": 10}`,
		`{"pattern": "func New", "limit": 0}`,
		`{"pattern": "func New", "mode": "count"}`,
		`{"limit": 5}`,
		`{"pattern": "x", "max": 5}`,
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(args), &m); err != nil {
			log.Fatal(err)
		}
		_, err := v.Validate(m)
		var fe *schema.FieldError
		switch {
		case err == nil:
			fmt.Println("ok")
		case errors.As(err, &fe):
			fmt.Printf("%s [%s]\n", err, fe.Keyword)
		default:
			log.Fatal(err)
		}
	}
	// Output:
	// {"type":"object","properties":{"pattern":{"type":"string","description":"the regular expression","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},"mode":{"type":"string","enum":["lines","files"]}},"required":["pattern"],"additionalProperties":false}
	// ok
	// field "limit": minimum: 0 is less than 1 [minimum]
	// field "mode": enum: "count" is not one of ["lines", "files"] [enum]
	// field "pattern": required field is missing [required]
	// field "max": unknown field (the schema allows no other properties) [additionalProperties]
}
