// Package process runs a model driver in a process of its own: [Serve] is
// the program's side, answering requests for a [driver.Model] read from its
// standard input, and [Model] is the caller's side, a driver.Model that
// starts that program and talks to it over a pipe.
//
// # Why
//
// The official SDKs of the model providers are heavy to link: their package
// initialisation (genai brings grpc, opencensus and Google Cloud's auth with
// it) ran at every start of the quiver command and cost it most of its
// start-up, although most starts (`quiver call`, `quiver serve`) never talk
// to a model. Go runs every linked package's init at start, with no way to
// defer it, so the SDKs live in a second program, quiver-models, which the
// quiver command starts only when a model is needed: when `quiver run`
// starts, or when a reviewer of [review] is first asked. A second benefit:
// the SDKs' code, and the network it needs, run in a process the sandbox
// confines read-only, apart from the tools' process.
//
// # Protocol
//
// One JSON value per line each way. The caller first sends the spec,
// {"op":"open","version":1,"spec":{...}}; then any number of
// {"id":N,"op":"generate"|"stream","request":{...}} and
// {"id":N,"op":"cancel"}, concurrently. The program answers each request
// with zero or more {"id":N,"event":{...}} (streams only) and one final
// {"id":N,"done":true,"response":{...},"error":{...}}. The driver types go
// as encoding/json writes them, under their snake_case json tags. Errors keep what callers test for:
// [driver.CallError]s (errors.As, [driver.IsCallError]) and
// [driver.ErrTruncated] (errors.Is); any other error arrives as its text.
// The program ends when its standard input does; the caller's [Model.Close]
// closes it.
package process
