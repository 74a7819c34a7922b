package driver_test

import (
	"testing"

	"github.com/quiverkit/quiver/driver"
)

func TestSpecCheck(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "k1", "GOOGLE_API_KEY": "k2", "MY_KEY": "k3"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		spec    driver.Spec
		wantErr string
		wantKey string
	}{
		{spec: driver.Spec{Provider: "openai", Model: "gpt-5"}, wantKey: "k1"},
		{spec: driver.Spec{Provider: "gemini", Model: "g"}, wantKey: "k2"}, // the second of gemini's variables
		{spec: driver.Spec{Provider: "anthropic", Model: "c", KeyEnv: "MY_KEY"}, wantKey: "k3"},
		{spec: driver.Spec{Provider: "anthropic", Model: "c", BaseURL: "http://127.0.0.1:1"}, wantKey: "none"},
		{spec: driver.Spec{Provider: "anthropic", Model: "c"}, wantErr: "no API key: set ANTHROPIC_API_KEY (or --base-url for a server that needs none)"},
		{spec: driver.Spec{Provider: "openai", Model: "m", KeyEnv: "UNSET"}, wantErr: "no API key: set UNSET (or --base-url for a server that needs none)"},
		{spec: driver.Spec{Provider: "mistral", Model: "m"}, wantErr: `--provider "mistral": want openai, anthropic or gemini`},
		{spec: driver.Spec{Provider: "openai"}, wantErr: "--model is required (the openai model to run)"},
		{spec: driver.Spec{Provider: "openai", Model: "m", API: "assistants"}, wantErr: `--api "assistants": want responses or chat`},
	} {
		err := tc.spec.Check(getenv)
		if got := errText(err); got != tc.wantErr {
			t.Errorf("%+v: Check = %q, want %q", tc.spec, got, tc.wantErr)
		}
		if err == nil && tc.spec.Key(getenv) != tc.wantKey {
			t.Errorf("%+v: Key = %q, want %q", tc.spec, tc.spec.Key(getenv), tc.wantKey)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
