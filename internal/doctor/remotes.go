package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// checkRemotes finds remotes that would publish checkpoints: a push with
// --mirror (remote.NAME.mirror) or a push refspec whose source matches
// refs/checkpoints/; and remotes whose plain fetch would write there (a
// fetch refspec whose destination matches it), over this tree's own
// checkpoints or the stores 'git checkpoint fetch' brought. A plain push,
// fetch or clone never transfers them.
func (d *Doctor) checkRemotes(ctx context.Context) ([]Check, error) {
	entries, err := d.Git.ConfigGetRegexp(ctx, `^remote\..*\.(mirror|push|fetch)$`)
	if err != nil {
		return nil, err
	}
	var cs []Check
	for _, e := range entries {
		key, val := e.Key, e.Value
		lower := strings.ToLower(key)
		remote := key[len("remote."):strings.LastIndex(key, ".")]
		switch {
		case strings.HasSuffix(lower, ".mirror") && mirrorOn(val):
			cs = append(cs, Check{Name: "remotes", Message: fmt.Sprintf("remote %s is a mirror: 'git push %s' would publish every checkpoint, untracked files included", remote, remote),
				Fix: fmt.Sprintf("git config --unset remote.%s.mirror", remote)})
		case strings.HasSuffix(lower, ".push") && pushesCheckpoints(val):
			cs = append(cs, Check{Name: "remotes", Message: fmt.Sprintf("remote %s pushes %q, which includes refs/checkpoints/", remote, val),
				Fix: fmt.Sprintf("git config --unset remote.%s.push %s, or narrow it to refs/heads/*", remote, fault.ShellQuote("^"+regexpQuote(val)+"$"))})
		case strings.HasSuffix(lower, ".fetch") && fetchesCheckpoints(val):
			cs = append(cs, Check{Name: "remotes", Message: fmt.Sprintf("remote %s fetches %q, which writes into refs/checkpoints/: 'git fetch %s' would replace checkpoints here with the remote's", remote, val, remote),
				Fix: fmt.Sprintf("git config --unset remote.%s.fetch %s, or narrow it to refs/heads/*; 'git checkpoint fetch' brings other stores' checkpoints safely", remote, fault.ShellQuote("^"+regexpQuote(val)+"$"))})
		}
	}
	if len(cs) == 0 {
		cs = append(cs, Check{Name: "remotes", OK: true, Message: "remotes: none would push checkpoints"})
	}
	return cs, nil
}

// pushesCheckpoints reports whether a push refspec's source matches refs
// under refs/checkpoints/.
func pushesCheckpoints(spec string) bool {
	spec = strings.TrimPrefix(strings.TrimSpace(spec), "+")
	if strings.HasPrefix(spec, "^") {
		return false // a negative refspec only excludes
	}
	src, _, _ := strings.Cut(spec, ":")
	return matchesCheckpoints(src)
}

// fetchesCheckpoints reports whether a fetch refspec writes refs under
// refs/checkpoints/ here: its destination matches them (a refspec without
// one writes no ref).
func fetchesCheckpoints(spec string) bool {
	spec = strings.TrimPrefix(strings.TrimSpace(spec), "+")
	if strings.HasPrefix(spec, "^") {
		return false
	}
	_, dst, ok := strings.Cut(spec, ":")
	return ok && dst != "" && matchesCheckpoints(dst)
}

// probes are a ref of each kind under refs/checkpoints/: a working tree's
// checkpoint, a linked worktree's, and a store's checkpoint and records
// (pushed, or fetched here).
var probes = []string{"refs/checkpoints/main/1", "refs/checkpoints/wt-x/1",
	"refs/checkpoints/stores/0123456789abcdef/1", "refs/checkpoints/stores/0123456789abcdef/records"}

// matchesCheckpoints reports whether one side of a refspec (a name or a
// pattern with one '*') matches a ref under refs/checkpoints/.
func matchesCheckpoints(side string) bool {
	if before, after, ok := strings.Cut(side, "*"); ok {
		for _, probe := range probes {
			if strings.HasPrefix(probe, before) && strings.HasSuffix(probe, after) && len(probe) >= len(before)+len(after) {
				return true
			}
		}
		return false
	}
	return side == "refs/checkpoints" || strings.HasPrefix(side, "refs/checkpoints/")
}

// mirrorOn reads remote.NAME.mirror as git reads a boolean.
func mirrorOn(v string) bool {
	on, err := config.ParseBool(v)
	return err == nil && on
}

// regexpQuote escapes s for git config's value regexps.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
