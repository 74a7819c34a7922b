package tools

import (
	"encoding/json"
	"fmt"

	"github.com/quiverkit/quiver/tool"
)

// How the tools that change files or run commands show a call to the
// person asked to approve it ([tool.View]): what will run or change, in
// the form people read it in, before the other arguments.

// The views of the tools whose calls have a form of their own.
var (
	commandView   = tool.WithView(tool.View{Show: showCommand, Summary: []string{"command", "argv"}})
	patchView     = tool.WithView(tool.View{Show: showPatch})
	editView      = tool.WithView(tool.View{Show: showEdit, Summary: []string{"path"}})
	multiEditView = tool.WithView(tool.View{Show: showMultiEdit, Summary: []string{"path"}})
	writeView     = tool.WithView(tool.View{Show: showWrite, Summary: []string{"path"}})
)

// summaryOf is the view of a tool shown only by its summary: the
// arguments, in order, that say most about a call.
func summaryOf(args ...string) tool.Option { return tool.WithView(tool.View{Summary: args}) }

// takeString removes the string argument name from args and returns it;
// a missing or non-string argument stays, and ok is false.
func takeString(args map[string]json.RawMessage, name string) (s string, ok bool) {
	raw, ok := args[name]
	if !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	delete(args, name)
	return s, true
}

// showCommand shows exec_command's command line as typed at a prompt.
func showCommand(args map[string]json.RawMessage) []tool.Shown {
	if c, ok := takeString(args, "command"); ok {
		return []tool.Shown{{Label: "$", Value: c}}
	}
	return nil
}

// showPatch shows apply_patch's patch as it is.
func showPatch(args map[string]json.RawMessage) []tool.Shown {
	if p, ok := takeString(args, "patch"); ok {
		return []tool.Shown{{Value: p, What: "the patch"}}
	}
	return nil
}

// showEdit shows an edit's old and new text as removed and added lines.
func showEdit(args map[string]json.RawMessage) []tool.Shown {
	if _, ok := args["old_string"]; !ok {
		return nil
	}
	path, _ := takeString(args, "path")
	o, _ := takeString(args, "old_string")
	n, _ := takeString(args, "new_string")
	return []tool.Shown{{Header: "path: " + path, Label: "-", Value: o}, {Label: "+", Value: n}}
}

// showWrite shows write_file's content as added lines.
func showWrite(args map[string]json.RawMessage) []tool.Shown {
	if _, ok := args["content"]; !ok {
		return nil
	}
	path, _ := takeString(args, "path")
	c, _ := takeString(args, "content")
	return []tool.Shown{{Header: "path: " + path + " (whole new content)", Label: "+", Value: c}}
}

// showMultiEdit shows each of multi_edit's edits as showEdit does, when
// every edit holds only old_string and new_string; else the edits are
// shown whole, by name, so that nothing of them goes unseen.
func showMultiEdit(args map[string]json.RawMessage) []tool.Shown {
	var edits []struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	raw, ok := args["edits"]
	if !ok || json.Unmarshal(raw, &edits) != nil || !plainEdits(raw, len(edits)) {
		return nil
	}
	delete(args, "edits")
	path, _ := takeString(args, "path")
	out := []tool.Shown{{Header: "path: " + path}}
	for i, e := range edits {
		out = append(out, tool.Shown{Header: fmt.Sprintf("@@ edit %d", i+1), Label: "-", Value: e.OldString}, tool.Shown{Label: "+", Value: e.NewString})
	}
	return out
}

// plainEdits reports whether each of n edits holds exactly old_string and
// new_string, so that showing those two shows all of them.
func plainEdits(raw json.RawMessage, n int) bool {
	var edits []map[string]json.RawMessage
	if json.Unmarshal(raw, &edits) != nil || len(edits) != n {
		return false
	}
	for _, e := range edits {
		if _, ok := e["old_string"]; !ok || len(e) != 2 {
			return false
		}
		if _, ok := e["new_string"]; !ok {
			return false
		}
	}
	return true
}
