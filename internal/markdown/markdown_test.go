package markdown

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		wantProse []string
		want      []Block
	}{
		{"a block's lines, fences included, leave the prose",
			"before\n```toml\n[workspace]\n```\nafter",
			[]string{"before", "", "", "", "after"},
			[]Block{{Lang: "toml", Line: 2, Text: "[workspace]\n"}}},
		{"tildes, a longer fence and an info string of several words",
			"~~~~ json title=x\n~~~\n{}\n~~~~\nprose",
			[]string{"", "", "", "", "prose"},
			[]Block{{Lang: "json", Line: 1, Text: "~~~\n{}\n"}}},
		{"a backtick fence is not closed by tildes nor by text after the fence",
			"```\n~~~\n``` not a close\n```\n",
			[]string{"", "", "", "", ""},
			[]Block{{Line: 1, Text: "~~~\n``` not a close\n"}}},
		{"a fence in a list item, indented",
			"- step\n\n  ```sh\n  quiver serve\n  ```\n",
			[]string{"- step", "", "", "", "", ""},
			[]Block{{Lang: "sh", Line: 3, Text: "  quiver serve\n"}}},
		{"an unclosed block runs to the end",
			"a\n```go\nx\n",
			[]string{"a", "", "", ""},
			[]Block{{Lang: "go", Line: 2, Text: "x\n\n"}}},
		{"two backticks and an inline span with backticks are prose",
			"``x``\n```a`b```\n",
			[]string{"``x``", "```a`b```", ""},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Parse(tt.text)
			if diff := cmp.Diff(tt.wantProse, d.Prose); diff != "" {
				t.Errorf("prose (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, d.Blocks); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSection(t *testing.T) {
	doc := Parse("# Title\n## Serving\nserve it:\n### Over GitHub\n`quiver serve`\n```toml\n# not a heading\n[workspace]\n```\n" +
		"#### Deeper\n```json\n{}\n```\n## Next\n```toml\nnext = 1\n```\n")
	s, ok := doc.Section("Over GitHub")
	if !ok {
		t.Fatal("no section Over GitHub")
	}
	want := &Doc{
		Prose: []string{"### Over GitHub", "`quiver serve`", "", "", "", "", "#### Deeper", "", "", ""},
		Start: 4,
		Blocks: []Block{
			{Lang: "toml", Line: 6, Text: "# not a heading\n[workspace]\n"},
			{Lang: "json", Line: 11, Text: "{}\n"},
		},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("section (-want +got):\n%s", diff)
	}
	if b, ok := s.Block("toml"); !ok || b.Line != 6 {
		t.Errorf("Block(toml) = %+v, %v; want the section's own, not the next section's", b, ok)
	}
	if _, ok := s.Block("yaml"); ok {
		t.Error("Block(yaml) found one the section does not hold")
	}
	if _, ok := doc.Section("not a heading"); ok {
		t.Error("a comment line in a block was taken for a heading")
	}
	if last, ok := doc.Section("Next"); !ok || len(last.Prose) != 5 || len(last.Blocks) != 1 {
		t.Errorf("the last section runs to the end: %+v, %v", last, ok)
	}
}

func TestHeading(t *testing.T) {
	tests := []struct {
		line  string
		text  string
		level int
	}{
		{"## Serving and agents", "Serving and agents", 2},
		{"###### six ##", "six", 6},
		{"####### seven", "", 0},
		{"#hashtag", "", 0},
		{"prose # not", "", 0},
	}
	for _, tt := range tests {
		if text, level := Heading(tt.line); text != tt.text || level != tt.level {
			t.Errorf("Heading(%q) = %q, %d; want %q, %d", tt.line, text, level, tt.text, tt.level)
		}
	}
}

// FuzzParse: whatever the text, the prose keeps one entry per line, each
// the line itself or emptied, every block's fence lies on an emptied line,
// and every heading of the prose opens a section that starts there.
func FuzzParse(f *testing.F) {
	f.Add("# T\n```toml\n[a]\n```\n## U\n~~~\nx\n")
	f.Add("````\n```\n````\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Split(text, "\n")
		d := Parse(text)
		if len(d.Prose) != len(lines) || d.Start != 1 {
			t.Fatalf("%d prose lines from line %d, want %d from 1", len(d.Prose), d.Start, len(lines))
		}
		for i, p := range d.Prose {
			if p != "" && p != lines[i] {
				t.Fatalf("prose line %d is %q, neither the line %q nor empty", i+1, p, lines[i])
			}
		}
		for _, b := range d.Blocks {
			if b.Line < 1 || b.Line > len(lines) || d.Prose[b.Line-1] != "" {
				t.Fatalf("block %+v: its fence is not an emptied line", b)
			}
		}
		for i, p := range d.Prose {
			text, level := Heading(p)
			if level == 0 {
				continue
			}
			s, ok := d.Section(text)
			if !ok {
				t.Fatalf("heading %q has no section", text)
			}
			if s.Start > i+1 || len(s.Prose) == 0 {
				t.Fatalf("section %q starts at %d, after its heading's line %d, or is empty", text, s.Start, i+1)
			}
		}
	})
}
