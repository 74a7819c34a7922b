package approve

import (
	"sync"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// builtinViews are the built-in tools' views, by name. The prompts are
// tested on the forms those tools give their calls, which the pipeline
// puts in every request (policy.Request.View); this package knows none.
var builtinViews = sync.OnceValue(func() map[string]tool.View {
	views := map[string]tool.View{}
	for _, t := range tools.All() {
		views[t.Name] = t.View
	}
	return views
})

// viewed is req with the view of the built-in tool it names, as the
// pipeline would send it.
func viewed(req policy.Request) policy.Request {
	req.View = builtinViews()[req.Tool]
	return req
}

// Viewed is viewed, for the package's external tests.
var Viewed = viewed
