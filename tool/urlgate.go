package tool

import "context"

// URLGate is the policy as seen by tools that fetch URLs. The pipeline
// decides a call on the URL it names, but a server can answer with a
// redirect to anywhere; web_fetch asks the gate about every URL it is about
// to request, redirect targets included, so that a rule such as
// deny = ["web_fetch(domain:internal.example)"] holds for every hop.
//
// The toolkit provides a gate for each call of a tool annotated OpenWorld
// under [URLGateKey] (per call, because what a hop may reach depends on how
// the call itself was allowed). The key has no Create: a tool that follows
// URLs without a gate fails closed.
type URLGate interface {
	// CheckURL returns an error (a *Error with code TOOL_NOT_ALLOWED, naming
	// the URL and the rule) if rawURL may not be requested.
	CheckURL(ctx context.Context, rawURL string) error
}

// URLGateKey is the dependency key of the toolkit's [URLGate].
var URLGateKey = Key[URLGate]{ID: "quiver.url-gate"}
