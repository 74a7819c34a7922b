package config

import (
	"errors"
	"fmt"
	"time"

	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/tool"
)

// Spec is the tool as package custom builds it: the one place the file's
// form of a custom tool becomes the provider's.
func (c Custom) Spec() custom.Spec {
	s := custom.Spec{Name: c.Name, Description: c.Description, Command: c.Command, Risk: tool.Risk(c.Risk),
		Timeout: time.Duration(c.TimeoutSecs) * time.Second, Workdir: c.Workdir}
	for _, p := range c.Params {
		s.Params = append(s.Params, custom.Param{Name: p.Name, Type: p.Type, Description: p.Description,
			Required: p.Required, Enum: p.Enum, AllowOptions: p.AllowOptions})
	}
	return s
}

// CustomTools builds the provider of the custom tools ([[tools.custom]] and
// [tools.custom.NAME]), passing on [exec] env_allow. What is wrong with a
// tool is an *[Error] at the place its file writes it (file:line:col), or
// the plain error for a tool no file wrote; several are joined.
func (c *Config) CustomTools() (*custom.Provider, error) {
	specs := make([]custom.Spec, len(c.Tools.Custom))
	for i, t := range c.Tools.Custom {
		specs[i] = t.Spec()
	}
	p, err := custom.New(specs, custom.Options{EnvAllow: c.Exec.EnvAllow})
	if err == nil {
		return p, nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil, err
	}
	var errs []error
	for _, e := range joined.Unwrap() {
		var se *custom.SpecError
		if !errors.As(e, &se) {
			errs = append(errs, e)
			continue
		}
		e := fmt.Errorf("tools.custom[%d] (%s): %w", se.Index, se.Name, se.Err)
		if at := c.Tools.Custom[se.Index].At; at.File != "" {
			e = &Error{Pos: at, Msg: e.Error(), Err: se.Err}
		}
		errs = append(errs, e)
	}
	return nil, errors.Join(errs...)
}
