package agents

import (
	"slices"
	"testing"
)

// TestRegistry checks what the code reading the descriptors relies on:
// unique names, known scopes, and events listed once, so that an agent
// added with a slip fails here rather than in a hook.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range registry {
		if a.Name == "" || seen[a.Name] {
			t.Errorf("agent name %q is empty or not unique", a.Name)
		}
		seen[a.Name] = true
		if got, ok := Lookup(a.Name); !ok || got.Name != a.Name {
			t.Errorf("Lookup(%q) = %q, %v", a.Name, got.Name, ok)
		}
		if len(a.Scopes) == 0 || len(a.configs) == 0 {
			t.Errorf("%s: no scopes or no configs", a.Name)
		}
		for _, s := range a.Scopes {
			if !slices.Contains([]string{ScopeLocal, ScopeProject, ScopeUser}, s) {
				t.Errorf("%s: unknown scope %q", a.Name, s)
			}
		}
		events := map[string]bool{}
		for _, e := range a.Events {
			if events[e.Name] {
				t.Errorf("%s: event %s listed twice", a.Name, e.Name)
			}
			events[e.Name] = true
		}
		if len(hookFiles(a)) > 0 && len(a.hooked()) == 0 {
			t.Errorf("%s: a settings file but no hooked events", a.Name)
		}
		if (a.onArgs == nil) != (a.argsEvent == nil) {
			t.Errorf("%s: onArgs and argsEvent go together", a.Name)
		}
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup found an agent that is not one")
	}
}

func TestTakesNotes(t *testing.T) {
	for name, want := range map[string]bool{Claude: true, Codex: true, Gemini: true, Copilot: true, Aider: false, "vim": false} {
		if got := TakesNotes(name); got != want {
			t.Errorf("TakesNotes(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestReadsStdin(t *testing.T) {
	for _, c := range []struct {
		agent string
		args  []string
		want  bool
	}{
		{Claude, nil, true},
		{Gemini, nil, true},
		{Copilot, nil, true},
		{Codex, nil, true},
		{Codex, []string{"notify", "{}"}, false},
		{Aider, nil, false},
		{Aider, []string{"post-commit"}, false},
		{"vim", nil, true}, // drained, so its caller's write does not fail
	} {
		a, _ := Lookup(c.agent)
		if got := a.ReadsStdin(c.args); got != c.want {
			t.Errorf("%s %v: ReadsStdin = %v, want %v", c.agent, c.args, got, c.want)
		}
	}
}
