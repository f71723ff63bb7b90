package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
)

// InstalledHooks lists the files holding hooks that call git-checkpoint,
// in this tree and in the user's scope: agents' settings files, their
// packages of ours (agents.Hooks), and the git post-commit hook.
func (d *Doctor) InstalledHooks(ctx context.Context) []string {
	var installed []string
	for _, h := range d.hooks() {
		installed = append(installed, h.Path)
	}
	// The user's core.hooksPath decides where git looks for hooks.
	if p, err := d.Git.UserGitPath(ctx, "hooks/post-commit"); err == nil {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "git-checkpoint") {
			installed = append(installed, p)
		}
	}
	return installed
}

// checkHookFailures reports hooks that run but take no checkpoint: the
// agent goes on, unprotected, and only hook.log says why.
func (d *Doctor) checkHookFailures(ctx context.Context) ([]Check, error) {
	if d.HookFailures == "" {
		return []Check{{Name: "hook_failures", OK: true, Message: "hook calls: the last ones took their checkpoints"}}, nil
	}
	return []Check{{Name: "hook_failures", Message: "hook calls: " + d.HookFailures,
		Fix: "read " + fault.Quote(filepath.Join(d.Store.Dir, "hook.log")) + " for the causes; this clears at the next hook call that takes its checkpoint"}}, nil
}

// hooks are the agents' files holding git-checkpoint's hooks in the tree
// and the user's scope, read on the first call: each read opens every
// agent's settings and packages.
func (d *Doctor) hooks() []agents.Hooked {
	if !d.hookedRead {
		d.hooked, d.hookedRead = agents.Hooks(d.agentEnv()), true
	}
	return d.hooked
}

// agentEnv is the tree and the user's scope as the agents see them.
func (d *Doctor) agentEnv() agents.Env {
	return agents.Env{Top: d.Repo.Top, Home: d.Getenv("HOME"), Getenv: d.Getenv}
}

// checkHooksTwice reports agents that run git-checkpoint's hooks both
// from their settings and from their package of ours: each hook runs
// twice, and every prompt counts as two turns. The fix names the
// uninstall of each settings file, by its scope.
func (d *Doctor) checkHooksTwice(context.Context) ([]Check, error) {
	hooked := d.hooks()
	var cs []Check
	for _, a := range agents.Twice(hooked) {
		var removes []string
		for _, h := range hooked {
			if h.Agent == a && !h.Package {
				removes = append(removes, "'git checkpoint uninstall "+a+" --scope "+h.Scope+"'")
			}
		}
		cs = append(cs, Check{Name: "hooks_twice", Message: "hooks: " + HooksTwice(a),
			Fix: "keep one: " + strings.Join(removes, " and ") + " removes the settings' hooks (the plugin keeps its own), or remove the plugin"})
	}
	return cs, nil
}

// TwiceHooked lists the agents that run git-checkpoint's hooks twice
// (agents.Twice).
func (d *Doctor) TwiceHooked() []string { return agents.Twice(d.hooks()) }

// HooksTwice says that agent runs git-checkpoint's hooks twice.
func HooksTwice(agent string) string {
	return agent + " runs git-checkpoint's hooks twice, from its settings and from its plugin, so every prompt counts as two turns"
}

// checkHooks finds installed hooks that call git-checkpoint and checks the
// binary is there: the hook snippets do nothing when it is missing, so
// checkpoints would silently stop.
func (d *Doctor) checkHooks(ctx context.Context) ([]Check, error) {
	installed := d.InstalledHooks(ctx)
	if len(installed) == 0 {
		return []Check{{Name: "hooks", OK: true, Message: "hooks: none installed"}}, nil
	}
	bin, err := program.LookPath("git-checkpoint", d.Cwd, d.Getenv("PATH"))
	if err != nil {
		if out, gerr := d.Git.Run(ctx, git.Cmd{Args: []string{"--exec-path"}}); gerr == nil {
			bin, _ = program.LookPath("git-checkpoint", d.Cwd, strings.TrimSpace(string(out)))
		}
	}
	var cs []Check
	for _, p := range installed {
		if bin != "" {
			cs = append(cs, Check{Name: "hooks", OK: true, Message: "hooks: " + p + " calls " + bin})
			continue
		}
		cs = append(cs, Check{Name: "hooks", Message: "hooks: " + p + " calls git-checkpoint, which is not on PATH: the hook does nothing, so no checkpoints are taken",
			Fix: "install git-checkpoint (make install) where the agent's PATH finds it, or remove the hook: 'git checkpoint uninstall AGENT' for a settings file, the agent's own command for a plugin or extension"})
	}
	return cs, nil
}
