// Package outputcache keeps tool outputs that are too large for a model's
// context whole, behind a reference id, so that nothing a tool printed is
// lost and nothing floods the context: the model gets the head and the tail
// and a marker naming the ref, and reads or searches the rest with the
// tool_output_cache and tool_output_cache_grep tools.
//
// # Where to start
//
//   - [Trim] is the pipeline's cache step: over the [Budget], store the
//     whole result and return the trimmed view. [TrimToBudget] does the same
//     for a conversation's oldest outputs (off by default; see why there).
//   - [Store] is the one interface: Create a [Writer] and stream into it,
//     Open a sealed [Output] by ref. [MemoryStore] (the library's default:
//     small outputs in memory, large ones in unlinked temporary files) and
//     [DirStore] (the CLI's: a directory that outlives the process) are the
//     stock stores; package outputcache/redisstore keeps outputs in Redis,
//     shared by `quiver serve` replicas, and package outputcache/storetest
//     holds every store to the one contract.
//   - [Output.ReadLines] and [Output.Grep] are what the two tools call.
//
// # Design
//
//   - Streaming. A writer indexes as bytes arrive ([LineIndex]) and keeps
//     nothing else; a 1 GB output never sits whole in memory. The index
//     records the offset of every [IndexEvery]th line, so reading line
//     10,000,000 seeks and scans a few thousand lines, not ten million.
//   - Ref ids are 128 random bits ([NewRef]): unique without coordination
//     even when providers reuse call ids, safe as file names, and
//     unguessable, so one MCP client cannot read another's outputs by
//     counting. Stores check a ref's syntax ([ValidRef]) before any lookup:
//     "../../etc/passwd" is refused as malformed and never reaches a file
//     system call.
//   - Reading an output still being written fails with [ErrInProgress]
//     rather than showing a moving target; the dir store seals an output by
//     renaming its index file into place, so another process sees it whole
//     or not at all.
//   - Caps, not failures. Stores evict the oldest outputs to stay within
//     their size caps (and, for the dir store, age); an output that alone
//     exceeds a store's cap keeps its first bytes and records the rest as
//     dropped, and the writer never fails the tool for it.
//
// This package knows nothing of the toolkit: the toolkit calls [Trim] after
// rendering a result and provides its store to tools under [Key].
package outputcache
