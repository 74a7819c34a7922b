package config

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/pelletier/go-toml/v2"
)

// The plugin tool system Quiver's users come from (copilot-quorum) writes
// its custom tools as a table of tables, [tools.custom.NAME], where Quiver
// writes an array of tables, [[tools.custom]]. TOML cannot hold both under
// one key, so a file uses one form or the other; decode finds which before
// the strict decoding, and both forms end as the same []Custom, served by
// the same provider.

// SpecCustom is one [tools.custom.NAME] tool of the spec's form.
type SpecCustom struct {
	Description string                     `toml:"description"`
	Command     string                     `toml:"command"`
	RiskLevel   RiskLevel                  `toml:"risk_level"` // default high
	Parameters  map[string]SpecCustomParam `toml:"parameters"`
	TimeoutSecs int                        `toml:"timeout"`
	Workdir     string                     `toml:"workdir"`
}

// SpecCustomParam is one [tools.custom.NAME.parameters.P] entry. As in the
// spec's system, type defaults to string and required to true.
type SpecCustomParam struct {
	Type         string   `toml:"type"`
	Description  string   `toml:"description"`
	Required     *bool    `toml:"required"`
	Enum         []string `toml:"enum"`
	AllowOptions bool     `toml:"allow_options"`
}

// RiskLevel is low or high, checked where it is written.
type RiskLevel struct{ Level string }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *RiskLevel) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "low", "high":
		r.Level = s
		return nil
	default:
		return fmt.Errorf("risk level %q: want low or high", s)
	}
}

// specDoc is the file with [tools.custom] in the spec's form; its Tools
// shadows the embedded Config's.
type specDoc struct {
	Config
	Tools specTools `toml:"tools"`
}

type specTools struct {
	Tools
	Custom map[string]SpecCustom `toml:"custom"`
}

// decode decodes data strictly into c, in whichever form its custom tools
// are written.
func decode(data []byte, c *Config) error {
	if !specForm(data) {
		return toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().EnableUnmarshalerInterface().Decode(c)
	}
	var doc specDoc
	if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().EnableUnmarshalerInterface().Decode(&doc); err != nil {
		return err
	}
	*c = doc.Config
	c.Tools = doc.Tools.Tools
	c.Tools.Custom = fromSpec(doc.Tools.Custom)
	return nil
}

// specForm reports whether tools.custom is a table (the spec's form). A
// document that does not parse is left to the strict decoding, which says
// where.
func specForm(data []byte) bool {
	var probe struct {
		Tools struct {
			Custom any `toml:"custom"`
		} `toml:"tools"`
	}
	if err := toml.Unmarshal(data, &probe); err != nil {
		return false
	}
	_, isTable := probe.Tools.Custom.(map[string]any)
	return isTable
}

// fromSpec converts the spec's tools to Quiver's, sorted by name (a table
// has no order), parameters sorted too.
func fromSpec(tools map[string]SpecCustom) []Custom {
	out := make([]Custom, 0, len(tools))
	for name, t := range tools {
		c := Custom{Name: name, Description: t.Description, Command: t.Command, Risk: t.RiskLevel.Level,
			TimeoutSecs: t.TimeoutSecs, Workdir: t.Workdir}
		for pname, p := range t.Parameters {
			c.Params = append(c.Params, CustomParam{Name: pname, Type: p.Type, Description: p.Description,
				Required: p.Required == nil || *p.Required, Enum: p.Enum, AllowOptions: p.AllowOptions})
		}
		sort.Slice(c.Params, func(i, j int) bool { return c.Params[i].Name < c.Params[j].Name })
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
