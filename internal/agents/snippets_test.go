package agents

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSnippetsMatchInstall checks the static files in hooks/<agent>/
// against Snippets and against what Install writes where there was
// nothing: the manual setup and the automatic one stay the same.
func TestSnippetsMatchInstall(t *testing.T) {
	for _, agent := range Names() {
		snippets, err := Snippets(agent)
		if err != nil {
			t.Fatal(err)
		}
		top, home := t.TempDir(), t.TempDir()
		hooks := filepath.Join(top, ".git", "hooks")
		os.MkdirAll(hooks, 0o755)
		env := Env{Top: top, Home: home, HooksDir: hooks, Getenv: func(string) string { return "" }}
		if _, err := Install(agent, ScopeLocal, env); err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		written := map[string]string{
			"claude/settings.json":   filepath.Join(top, ".claude", "settings.local.json"),
			"codex/hooks.json":       filepath.Join(top, ".codex", "hooks.json"),
			"codex/config.toml":      filepath.Join(home, ".codex", "config.toml"),
			"gemini/settings.json":   filepath.Join(top, ".gemini", "settings.json"),
			"copilot/settings.json":  filepath.Join(top, ".github", "copilot", "settings.local.json"),
			"opencode/" + pluginName: filepath.Join(top, ".opencode", "plugins", pluginName),
			"qwen/settings.json":     filepath.Join(top, ".qwen", "settings.json"),
			"pi/" + piExtensionName:  filepath.Join(top, ".pi", "extensions", piExtensionName),
			"kimi/config.toml":       filepath.Join(home, ".kimi-code", "config.toml"),
			"cursor/hooks.json":      filepath.Join(top, ".cursor", "hooks.json"),
			"aider/post-commit":      filepath.Join(hooks, "post-commit"),
		}
		for _, e := range cline.hooked() {
			written["cline/"+e] = filepath.Join(top, ".clinerules", "hooks", e)
		}
		for _, s := range snippets {
			name := agent + "/" + s.Name
			static, err := os.ReadFile(filepath.Join("..", "..", "hooks", agent, s.Name))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if string(static) != s.Content {
				t.Errorf("hooks/%s differs from 'git checkpoint install %s --print':\n%s", name, agent, s.Content)
			}
			got, err := os.ReadFile(written[name])
			if err != nil || string(got) != s.Content {
				t.Errorf("install %s wrote %s as:\n%s\nwant hooks/%s:\n%s", agent, written[name], got, name, s.Content)
			}
		}
	}
	executables := []string{"aider/post-commit"}
	for _, e := range cline.hooked() {
		executables = append(executables, "cline/"+e)
	}
	for _, name := range executables {
		if fi, err := os.Stat(filepath.Join("..", "..", "hooks", name)); err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("hooks/%s must be executable: %v", name, err)
		}
	}
}
