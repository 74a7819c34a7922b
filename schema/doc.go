// Package schema infers JSON Schemas from Go types, validates arguments against
// them, and converts the one canonical schema into the dialect each model
// provider accepts.
//
// The canonical schema is what github.com/google/jsonschema-go infers, with
// two changes made by [Infer]:
//
//   - No type unions with "null". jsonschema-go infers a slice as
//     ["null","array"] and a pointer as ["null", T]; Gemini rejects type
//     arrays, and a model never needs to send null for an input. Optional
//     means "not in required", and [Validator] treats an explicit null for an
//     optional property as if it were absent (OpenAI strict mode sends null for
//     the optional properties it made nullable), so nothing is lost.
//   - Constraint tags. Beside `jsonschema:"description"`, struct fields may
//     carry `enum:"a,b"`, `minimum:"0"`, `maximum:"3"`, `pattern:"re"`,
//     `minLength:"1"` and `default:"json"`, which jsonschema-go does not read.
//
// Dialects: [OpenAIStrict] for OpenAI strict mode. Other providers' dialects
// live with their drivers.
//
// This package imports nothing else of Quiver's.
package schema
