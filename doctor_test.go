package checkpoint_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorHookBinaryMissing installs an agent hook and a post-commit hook
// that call git-checkpoint, then runs doctor with a PATH where only git is
// found: the hooks would do nothing, so doctor reports each one (exit 1).
func TestDoctorHookBinaryMissing(t *testing.T) {
	self, err := exec.LookPath("git-checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	env := gitEnv(t)
	writeFile(t, filepath.Join(dir, ".gemini/settings.json"),
		`{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"git-checkpoint hook gemini AfterAgent || true"}]}]}}`, 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, ".git/hooks/post-commit"), "#!/bin/sh\n# git-checkpoint\ngit checkpoint hook aider post-commit || true\n", 0o755)

	found := must(t, 0, dir, env, "git", "checkpoint", "doctor")
	if !strings.Contains(found.stdout, "ok       hooks: "+filepath.Join(dir, ".gemini/settings.json")+" calls ") {
		t.Fatalf("with git-checkpoint on PATH:\n%s", found.stdout)
	}

	var noBin []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			noBin = append(noBin, kv)
		}
	}
	noBin = append(noBin, "PATH="+filepath.Dir(gitBin))
	r := must(t, 1, dir, noBin, self, "doctor")
	for _, want := range []string{
		"problem  hooks: " + filepath.Join(dir, ".gemini/settings.json") + " calls git-checkpoint, which is not on PATH: the hook does nothing, so no checkpoints are taken\n",
		"problem  hooks: " + filepath.Join(dir, ".git/hooks/post-commit") + " calls git-checkpoint, which is not on PATH",
		"fix: install git-checkpoint (make install) where the agent's PATH finds it, or remove the hook: 'git checkpoint uninstall AGENT' for a settings file, the agent's own command for a plugin or extension\n",
		"2 problems found\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor's report lacks %q:\n%s", want, r.stdout)
		}
	}
}
