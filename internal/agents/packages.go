package agents

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// Hooked is a file holding hooks that call git-checkpoint, and the agent
// that runs them: a settings file install wrote, or the hooks of an
// agent's own package of ours (Package: a Claude Code plugin, a Gemini
// CLI extension), which install knows nothing of and uninstall does not
// remove.
type Hooked struct {
	Agent, Path string
	// Scope is the install scope of a settings file (ScopeLocal,
	// ScopeProject, ScopeUser): what uninstall takes to remove it.
	Scope   string
	Package bool
}

// Hooks lists the files holding git-checkpoint's hooks that the agents
// run in the tree env.Top and in the user's scope, settings files first.
func Hooks(env Env) []Hooked {
	var tree, user []Hooked
	seen := map[string]bool{}
	for _, a := range registry {
		for _, f := range hookFiles(a) {
			for _, scope := range a.Scopes {
				p := f.hooksAt(scope, env)
				// Not absolute: a scope of the tree outside one, or the
				// user's without HOME; no file of the person's (placed).
				if seen[p] || !filepath.IsAbs(p) || !HoldsHooksFile(p) {
					continue
				}
				seen[p] = true
				h := Hooked{Agent: a.Name, Path: p, Scope: scope}
				if scope == ScopeUser {
					user = append(user, h)
				} else {
					tree = append(tree, h)
				}
			}
		}
	}
	out := append(tree, user...) // the tree's first
	for _, p := range claudePlugins(env) {
		out = append(out, Hooked{Agent: "claude", Path: p, Package: true})
	}
	for _, p := range geminiExtensions(env.Home) {
		out = append(out, Hooked{Agent: Gemini, Path: p, Package: true})
	}
	return out
}

// Twice lists the agents that run git-checkpoint's hooks both from a
// settings file and from a package: every hook then runs twice, and a
// prompt counts as two turns (TestAgents/claude-plugin saw it). An agent
// that runs an identical command once whichever file holds it (Gemini
// CLI: hooksOnce), hooked with the same command both ways, is never
// listed.
func Twice(hooked []Hooked) []string {
	settings, packages := map[string]bool{}, map[string]bool{}
	for _, h := range hooked {
		if a, ok := Lookup(h.Agent); ok && a.hooksOnce {
			continue
		}
		if h.Package {
			packages[h.Agent] = true
		} else {
			settings[h.Agent] = true
		}
	}
	var out []string
	for a := range packages {
		if settings[a] {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// claudePlugins are the hooks files of Claude Code's plugins installed
// for the tree env.Top (plugins/installed_plugins.json, version 2, in
// claudeConfigDir: an install of the user's scope, or of the project or
// local scope whose projectPath is the tree) that call git-checkpoint,
// but for those the settings turn off (enabledPlugins, the local
// settings over the project's over the user's, as Claude Code reads
// them).
func claudePlugins(env Env) []string {
	dir := claudeConfigDir(env)
	if dir == "" {
		return nil
	}
	var installed struct {
		Plugins map[string][]struct {
			Scope       string `json:"scope"`
			ProjectPath string `json:"projectPath"`
			InstallPath string `json:"installPath"`
		} `json:"plugins"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "plugins", "installed_plugins.json"))
	if err != nil || json.Unmarshal(b, &installed) != nil {
		return nil
	}
	enabled := map[string]bool{}
	for _, scope := range []string{ScopeUser, ScopeProject, ScopeLocal} {
		if scope != ScopeUser && env.Top == "" {
			continue
		}
		var settings struct {
			Enabled map[string]bool `json:"enabledPlugins"`
		}
		if b, err := os.ReadFile(claudeSettings(scope, env)); err == nil && json.Unmarshal(b, &settings) == nil {
			maps.Copy(enabled, settings.Enabled)
		}
	}
	var out []string
	for name, installs := range installed.Plugins {
		if on, set := enabled[name]; set && !on {
			continue
		}
		for _, in := range installs {
			if in.Scope != "" && in.Scope != ScopeUser && (env.Top == "" || filepath.Clean(in.ProjectPath) != filepath.Clean(env.Top)) {
				continue // another project's
			}
			p := filepath.Join(in.InstallPath, "hooks", "hooks.json")
			if in.InstallPath != "" && HoldsHooksFile(p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// geminiExtensions are the hooks files of Gemini CLI's extensions
// (~/.gemini/extensions/NAME) that call git-checkpoint: a linked one's
// are in the directory it links (.gemini-extension-install.json), a
// copied one's in its own.
func geminiExtensions(home string) []string {
	if home == "" {
		return nil
	}
	dirs, _ := filepath.Glob(filepath.Join(home, ".gemini", "extensions", "*"))
	var out []string
	for _, dir := range dirs {
		var install struct{ Source, Type string }
		if b, err := os.ReadFile(filepath.Join(dir, ".gemini-extension-install.json")); err == nil &&
			json.Unmarshal(b, &install) == nil && install.Type == "link" {
			dir = install.Source
		}
		if p := filepath.Join(dir, "hooks", "hooks.json"); HoldsHooksFile(p) {
			out = append(out, p)
		}
	}
	return out
}
