package outputcache

import "fmt"

// Kept says where the whole of an output is when a view of it leaves
// something out. Its [Kept.Note] ends the view's [Marker], so that a model
// always learns where to read the rest, or why it cannot.
type Kept struct {
	Ref     string // a ref in the output cache
	File    string // a file the host can read and commands cannot (sandbox.PrivateDir)
	Partial int64  // File holds only the output's first Partial bytes (0: all of it)
	Err     error  // why the whole output could not be kept
	NoStore bool   // there was no output cache to keep it in
}

// Note is the end of a marker: where the full output is, or why it is
// nowhere.
func (k Kept) Note() string {
	switch {
	case k.Ref != "":
		return fmt.Sprintf("full output: ref=%s, read it with %s or search it with %s", k.Ref, ReadTool, GrepTool)
	case k.File != "" && k.Partial > 0:
		return fmt.Sprintf("the output's first %d bytes in the file %s (the rest was not kept), for the host: commands cannot read it", k.Partial, k.File)
	case k.File != "":
		return "full output in the file " + k.File + ", for the host: commands cannot read it"
	case k.Err != nil:
		return fmt.Sprintf("the full output could not be kept: %v", k.Err)
	case k.NoStore:
		return "the output cache is off, so the full output was not kept"
	default:
		return "the full output was not kept"
	}
}

// Marker is the one line that stands where a view of an output leaves
// something out, whoever trimmed it (the pipeline's cache step, a command's
// spool, a job's log): how many whole lines and bytes were left out, then
// kept's note:
//
//	[... 48210 lines (2811403 bytes) omitted; full output: ref=REF, read it with tool_output_cache or search it with tool_output_cache_grep ...]
//
// lines < 0 means they were not counted (a job's log is read at its two
// ends only), and the marker names the bytes alone. A view that leaves no
// byte out but clipped long lines (each ending "[... N characters clipped
// ...]") says so in the same place: "[... long lines clipped; NOTE ...]".
func Marker(lines, bytes int64, kept Kept) string {
	var what string
	switch {
	case lines < 0:
		what = fmt.Sprintf("%d bytes omitted", bytes)
	case lines == 0 && bytes == 0:
		what = "long lines clipped"
	default:
		what = fmt.Sprintf("%d lines (%d bytes) omitted", lines, bytes)
	}
	return "[... " + what + "; " + kept.Note() + " ...]"
}
