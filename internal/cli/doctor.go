package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
	"github.com/git-checkpoint/git-checkpoint/internal/config"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/restore"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

const doctorHelp = `Check the checkpoint store and its surroundings, and say how to fix each
problem: the git version, journal damage (lines that do not parse or chain,
a cut-short end), checkpoint refs without a record, records whose ref was
deleted or moved, an interrupted rewind, files a killed rewind left, remotes
that would push checkpoints, and agent hooks whose binary is missing.
Without --fix it changes nothing. Exits 1 when it finds a problem.`

type doctorCmd struct {
	Fix bool `help:"First apply the repairs that need no decision: rebuild a damaged journal (keeping it aside), adopt refs without a record, remove a killed rewind's staging files."`
}

// Help is the long help of git checkpoint doctor.
func (c *doctorCmd) Help() string { return doctorHelp }

// check is one line of the report.
type check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

type doctorDoc struct {
	Fixed    []string `json:"fixed,omitempty"`
	Checks   []check  `json:"checks"`
	Problems int      `json:"problems"`
}

// minGit is the oldest git with everything the tool runs (rev-parse
// --path-format, update-ref --stdin transactions).
var minGit = [2]int{2, 31}

func (c *doctorCmd) Run(ctx context.Context, sys *IO, g *Globals) error {
	s, err := open(ctx, sys, g)
	if err != nil {
		return err
	}
	doc := doctorDoc{Checks: []check{}}
	if c.Fix {
		if doc.Fixed, err = s.repairAll(ctx); err != nil {
			return err
		}
	}
	for _, f := range []func(context.Context) ([]check, error){
		s.checkGit, s.checkJournal, s.checkRewind, s.checkRemotes, s.checkHooks, s.checkHookFailures,
	} {
		cs, err := f(ctx)
		if err != nil {
			return err
		}
		doc.Checks = append(doc.Checks, cs...)
	}
	for _, ch := range doc.Checks {
		if !ch.OK {
			doc.Problems++
		}
	}
	if s.out.json {
		if err := s.out.JSON(doc); err != nil {
			return err
		}
	} else {
		for _, f := range doc.Fixed {
			s.out.Printf("%-8s %s\n", s.out.Paint("green", "fixed"), f)
		}
		for _, ch := range doc.Checks {
			mark := s.out.Paint("green", "ok")
			if !ch.OK {
				mark = s.out.Paint("red", "problem")
			}
			s.out.Printf("%-8s %s\n", mark, ch.Message)
			if ch.Fix != "" {
				s.out.Printf("%-8s fix: %s\n", "", ch.Fix)
			}
		}
		switch doc.Problems {
		case 0:
			s.out.Printf("no problems found\n")
		default:
			s.out.Printf("%d %s found\n", doc.Problems, fault.Plural(doc.Problems, "problem", "problems"))
		}
	}
	if doc.Problems > 0 {
		return &fault.ExitStatus{Code: 1}
	}
	return nil
}

// repairAll applies the repairs that need no decision, under the lock.
func (s *session) repairAll(ctx context.Context) ([]string, error) {
	j, unlock, err := s.lockedJournal(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	refs, err := s.store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	did, err := s.store.Repair(ctx, j, refs)
	if err != nil {
		return did, err
	}
	removed, err := restore.CleanStaging(s.store.Path("staging"))
	if err != nil {
		return did, fault.Wrap(err, "failed.io", "cannot clean the staging directory")
	}
	if len(removed) > 0 {
		did = append(did, fmt.Sprintf("removed %d staging %s a killed rewind left", len(removed), fault.Plural(len(removed), "entry", "entries")))
	}
	return did, nil
}

func (s *session) checkGit(ctx context.Context) ([]check, error) {
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"version"}})
	if err != nil {
		return nil, err
	}
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "git version "))
	f := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == ' ' })
	ok := false
	if len(f) >= 2 {
		major, _ := strconv.Atoi(f[0])
		minor, _ := strconv.Atoi(f[1])
		ok = major > minGit[0] || (major == minGit[0] && minor >= minGit[1])
	}
	ch := check{Name: "git", OK: ok, Message: "git " + v}
	if !ok {
		ch.Message += fmt.Sprintf(", older than %d.%d, which git-checkpoint needs", minGit[0], minGit[1])
		ch.Fix = "upgrade git"
	}
	return []check{ch}, nil
}

// checkJournal compares the journal with the refs without repairing
// either: what doctor reports is what it found.
func (s *session) checkJournal(ctx context.Context) ([]check, error) {
	j, err := s.store.Journal()
	if err != nil {
		return nil, err
	}
	refs, err := s.store.Refs(ctx)
	if err != nil {
		return nil, err
	}
	const repair = "git checkpoint doctor --fix (every other command also does this)"
	var cs []check
	for _, p := range j.Problems {
		cs = append(cs, check{Name: "journal", Message: "journal: " + p,
			Fix: repair + "; it rebuilds the journal from what is readable and the refs, keeping the damaged file aside"})
	}
	if j.Missing && len(refs) > 0 {
		cs = append(cs, check{Name: "journal", Message: fmt.Sprintf("journal: missing, while %d checkpoint %s exist", len(refs), fault.Plural(len(refs), "ref", "refs")),
			Fix: repair + "; it rebuilds the journal from the refs and their commits' trailers"})
	}
	known := map[int]bool{}
	var gone []*store.Record
	for _, r := range j.Checkpoints() {
		known[r.N] = true
		if refs[r.N] != r.Commit && !(refs[r.N] == "" && j.Pruned(r.ID)) {
			gone = append(gone, r)
		}
	}
	var orphans []int
	for n := range refs {
		if !known[n] {
			orphans = append(orphans, n)
		}
	}
	slices.Sort(orphans)
	for _, n := range orphans {
		cs = append(cs, check{Name: "refs", Message: fmt.Sprintf("%s has no record in the journal (a run stopped between the two)", s.store.Ref(n)),
			Fix: repair + "; it adopts the checkpoint from its commit's trailers"})
	}
	have, err := s.haveObjects(ctx, gone)
	if err != nil {
		return nil, err
	}
	for _, r := range gone {
		ref, now := s.store.Ref(r.N), refs[r.N]
		ch := check{Name: "refs"}
		switch {
		case now == "" && have[r.Commit]:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s was deleted", r.ID, ref)
			ch.Fix = fmt.Sprintf("put it back with 'git update-ref %s %s \"\"', or forget it with 'git checkpoint prune'", ref, r.Commit)
		case now == "":
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s was deleted and its commit is no longer in the repository", r.ID, ref)
			ch.Fix = "forget it with 'git checkpoint prune'"
		case have[r.Commit]:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s points at %s, not at its commit %s", r.ID, ref, fault.Short(now), fault.Short(r.Commit))
			ch.Fix = fmt.Sprintf("put it back with 'git update-ref %s %s %s'", ref, r.Commit, now)
		default:
			ch.Message = fmt.Sprintf("checkpoint %s is gone: its ref %s points at %s, and its commit %s is no longer in the repository", r.ID, ref, fault.Short(now), fault.Short(r.Commit))
			ch.Fix = fmt.Sprintf("remove the ref with 'git update-ref -d %s %s', then forget it with 'git checkpoint prune'", ref, now)
		}
		cs = append(cs, ch)
	}
	for _, a := range s.store.Aside() {
		cs = append(cs, check{Name: "journal", Message: "a damaged journal was kept aside when the journal was rebuilt: " + a,
			Fix: "compare it with the journal (nothing in it was dropped that parsed), then remove it: rm " + shellQuote(a)})
	}
	if len(cs) == 0 {
		n := len(j.Checkpoints())
		cs = append(cs, check{Name: "journal", OK: true, Message: fmt.Sprintf("journal: %d %s, every line chained, every ref recorded", n, fault.Plural(n, "checkpoint", "checkpoints"))})
	}
	return cs, nil
}

// haveObjects says which of the records' commits are still in the
// repository, in one git call.
func (s *session) haveObjects(ctx context.Context, recs []*store.Record) (map[string]bool, error) {
	have := map[string]bool{}
	if len(recs) == 0 {
		return have, nil
	}
	var in strings.Builder
	for _, r := range recs {
		in.WriteString(r.Commit + "\n")
	}
	out, err := s.git.Run(ctx, git.Cmd{Args: []string{"cat-file", "--batch-check=%(objectname) %(objecttype)"}, Stdin: []byte(in.String())})
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if oid, typ, ok := strings.Cut(line, " "); ok && typ == "commit" {
			have[oid] = true
		}
	}
	return have, nil
}

func (s *session) checkRewind(ctx context.Context) ([]check, error) {
	j, err := s.store.Journal()
	if err != nil {
		return nil, err
	}
	var cs []check
	if started, ended := j.LastRewind(); started != nil && !ended {
		cs = append(cs, check{Name: "rewind", Message: fmt.Sprintf("a rewind to %s was interrupted; files may be part old, part new", started.Target),
			Fix: "git rewind --undo (back to safety checkpoint " + started.Safety + "), or look first with 'git rewind --undo --dry-run'"})
	}
	stale, err := restore.StaleStaging(s.store.Path("staging"))
	if err != nil {
		return nil, fault.Wrap(err, "failed.io", "cannot read the staging directory")
	}
	if len(stale) > 0 {
		cs = append(cs, check{Name: "staging", Message: fmt.Sprintf("%d staging %s left by a killed rewind in %s", len(stale), fault.Plural(len(stale), "entry", "entries"), s.store.Path("staging")),
			Fix: "git checkpoint doctor --fix (the next rewind also removes them)"})
	}
	if len(cs) == 0 {
		cs = append(cs, check{Name: "rewind", OK: true, Message: "rewinds: none interrupted"})
	}
	return cs, nil
}

// checkRemotes finds remotes that would publish checkpoints: a push with
// --mirror (remote.NAME.mirror) or a push refspec whose source matches
// refs/checkpoints/. A plain push or clone never transfers them.
func (s *session) checkRemotes(ctx context.Context) ([]check, error) {
	entries, err := s.git.ConfigGetRegexp(ctx, `^remote\..*\.(mirror|push)$`)
	if err != nil {
		return nil, err
	}
	var cs []check
	for _, e := range entries {
		key, val := e.Key, e.Value
		lower := strings.ToLower(key)
		remote := key[len("remote."):strings.LastIndex(key, ".")]
		switch {
		case strings.HasSuffix(lower, ".mirror") && mirrorOn(val):
			cs = append(cs, check{Name: "remotes", Message: fmt.Sprintf("remote %s is a mirror: 'git push %s' would publish every checkpoint, untracked files included", remote, remote),
				Fix: fmt.Sprintf("git config --unset remote.%s.mirror", remote)})
		case strings.HasSuffix(lower, ".push") && pushesCheckpoints(val):
			cs = append(cs, check{Name: "remotes", Message: fmt.Sprintf("remote %s pushes %q, which includes refs/checkpoints/", remote, val),
				Fix: fmt.Sprintf("git config --unset remote.%s.push %s, or narrow it to refs/heads/*", remote, shellQuote("^"+regexpQuote(val)+"$"))})
		}
	}
	if len(cs) == 0 {
		cs = append(cs, check{Name: "remotes", OK: true, Message: "remotes: none would push checkpoints"})
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
	const probe = "refs/checkpoints/main/1"
	if before, after, ok := strings.Cut(src, "*"); ok {
		return strings.HasPrefix(probe, before) && strings.HasSuffix(probe, after) &&
			len(probe) >= len(before)+len(after)
	}
	return src == "refs/checkpoints" || strings.HasPrefix(src, "refs/checkpoints/")
}

// installedHooks lists the agent settings files and the git post-commit
// hook that call git-checkpoint, in this tree and in the user's scope.
func (s *session) installedHooks(ctx context.Context) []string {
	var installed []string
	var files []string
	for _, f := range agents.TreeSettings() {
		files = append(files, filepath.Join(s.repo.Top, f))
	}
	for _, p := range append(files, agents.UserSettings(s.sys.Getenv("HOME"), s.sys.Getenv)...) {
		if agents.HoldsHooksFile(p) {
			installed = append(installed, p)
		}
	}
	// The user's core.hooksPath decides where git looks for hooks.
	if p, err := s.git.UserGitPath(ctx, "hooks/post-commit"); err == nil {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "git-checkpoint") {
			installed = append(installed, p)
		}
	}
	return installed
}

// checkHookFailures reports hooks that run but take no checkpoint: the
// agent goes on, unprotected, and only hook.log says why.
func (s *session) checkHookFailures(ctx context.Context) ([]check, error) {
	f := s.hookFailures()
	if f == nil {
		return []check{{Name: "hook_failures", OK: true, Message: "hook calls: the last ones took their checkpoints"}}, nil
	}
	return []check{{Name: "hook_failures", Message: "hook calls: " + f.describe(s.sys.Now()),
		Fix: "read " + fault.Quote(filepath.Join(s.store.Dir, "hook.log")) + " for the causes; this clears at the next hook call that takes its checkpoint"}}, nil
}

// checkHooks finds installed hooks that call git-checkpoint and checks the
// binary is there: the hook snippets do nothing when it is missing, so
// checkpoints would silently stop.
func (s *session) checkHooks(ctx context.Context) ([]check, error) {
	installed := s.installedHooks(ctx)
	if len(installed) == 0 {
		return []check{{Name: "hooks", OK: true, Message: "hooks: none installed"}}, nil
	}
	bin, err := lookPath("git-checkpoint", s.cwd, s.sys.Getenv("PATH"))
	if err != nil {
		if out, gerr := s.git.Run(ctx, git.Cmd{Args: []string{"--exec-path"}}); gerr == nil {
			bin, _ = lookPath("git-checkpoint", s.cwd, strings.TrimSpace(string(out)))
		}
	}
	var cs []check
	for _, p := range installed {
		if bin != "" {
			cs = append(cs, check{Name: "hooks", OK: true, Message: "hooks: " + p + " calls " + bin})
			continue
		}
		cs = append(cs, check{Name: "hooks", Message: "hooks: " + p + " calls git-checkpoint, which is not on PATH: the hook does nothing, so no checkpoints are taken",
			Fix: "install git-checkpoint (make install) where the agent's PATH finds it, or remove the hook with 'git checkpoint uninstall AGENT'"})
	}
	return cs, nil
}

// mirrorOn reads remote.NAME.mirror as git reads a boolean.
func mirrorOn(v string) bool {
	on, err := config.ParseBool(v)
	return err == nil && on
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
