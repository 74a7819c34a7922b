// Package tool holds the contracts every part of Quiver agrees on: what a tool
// is ([Tool]), how a typed Go function becomes one ([Func]), what a call
// returns ([Result]) or fails with ([Error] and its stable [Code]s), and what a
// running tool may use ([Context], dependency [Key]s).
//
// It imports nothing of Quiver's but package schema (which [Func] needs to infer
// and check input schemas, and which imports nothing of Quiver's itself), so a
// tool author depends on these two alone; the first design (docs/design.md
// section 2) had tool import nothing at all, which would have put schema
// inference in two places. The workspace and the output cache reach a tool
// as dependencies with well-known keys (see workspace.Key and
// outputcache.Key) rather than as fields of [Context]: that keeps this
// package at the bottom of the import graph, and lets a host override
// either of them like any other dependency. [Resolve] takes the
// call's context.Context beside the tool.Context, because a dependency's
// Create may do I/O that must be cancellable, and a Context struct does not
// carry a context.Context (Go's convention).
//
// Where to start: [Func] builds a tool from a typed function and is what almost
// every tool uses; [Tool] is the low-level shape that providers (MCP servers,
// command templates) fill in by hand.
package tool
