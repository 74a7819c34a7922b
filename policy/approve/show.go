package approve

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/policy"
)

// maxShownLines bounds what Show prints of a long patch or file; the rest is
// counted, never silently dropped.
const maxShownLines = 200

// Show renders what a call will do, for a person to approve: the command
// line of exec_command, the patch of apply_patch, an edit's old and new text
// as removed and added lines, write_file's path and content. Other tools, and
// arguments these tools do not recognise, are shown as indented JSON.
func Show(req policy.Request) string {
	var a struct {
		Command   string   `json:"command"`
		Argv      []string `json:"argv"`
		Workdir   string   `json:"workdir"`
		Patch     string   `json:"patch"`
		Path      string   `json:"path"`
		OldString *string  `json:"old_string"`
		NewString *string  `json:"new_string"`
		Content   *string  `json:"content"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if json.Unmarshal(req.Arguments, &a) != nil {
		return indentJSON(req.Arguments)
	}
	var b strings.Builder
	switch {
	case req.Tool == "exec_command" && (a.Command != "" || len(a.Argv) > 0):
		if a.Workdir != "" {
			fmt.Fprintf(&b, "  (in %s)\n", a.Workdir)
		}
		if a.Command != "" {
			fmt.Fprintf(&b, "  $ %s", a.Command)
		} else {
			fmt.Fprintf(&b, "  argv %q", a.Argv)
		}
	case req.Tool == "apply_patch" && a.Patch != "":
		lines(&b, "  ", a.Patch)
	case (req.Tool == "edit") && a.OldString != nil && a.NewString != nil:
		fmt.Fprintf(&b, "  %s\n", a.Path)
		lines(&b, "  - ", *a.OldString)
		lines(&b, "  + ", *a.NewString)
	case req.Tool == "multi_edit" && len(a.Edits) > 0:
		fmt.Fprintf(&b, "  %s\n", a.Path)
		for i, e := range a.Edits {
			fmt.Fprintf(&b, "  @@ edit %d\n", i+1)
			lines(&b, "  - ", e.OldString)
			lines(&b, "  + ", e.NewString)
		}
	case req.Tool == "write_file" && a.Content != nil:
		fmt.Fprintf(&b, "  %s (whole new content):\n", a.Path)
		lines(&b, "  + ", *a.Content)
	default:
		return indentJSON(req.Arguments)
	}
	return strings.TrimRight(b.String(), "\n")
}

// lines writes text line by line with prefix, up to maxShownLines, and says
// how many lines it left out.
func lines(b *strings.Builder, prefix, text string) {
	ls := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range ls {
		if i == maxShownLines {
			fmt.Fprintf(b, "%s... %d more lines\n", prefix, len(ls)-i)
			return
		}
		b.WriteString(prefix + l + "\n")
	}
}
