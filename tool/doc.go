// Package tool holds the contracts every part of Quiver agrees on: what a tool
// is ([Tool]), how a typed Go function becomes one ([Func]), what a call
// returns ([Result]) or fails with ([Error] and its stable [Code]s), and what a
// running tool may use ([Context], dependency [Key]s).
//
// It imports nothing else of Quiver's, so a tool author depends on this package
// alone. The workspace and the output cache reach a tool as dependencies with
// well-known keys (see workspace.Key and outputcache.Key) rather than as fields
// of [Context]: that keeps this package at the bottom of the import graph, and
// lets a host override either of them like any other dependency.
//
// Where to start: [Func] builds a tool from a typed function and is what almost
// every tool uses; [Tool] is the low-level shape that providers (MCP servers,
// command templates) fill in by hand.
package tool
