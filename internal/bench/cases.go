package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agents"
)

// A benchCase is one measured operation. setup and teardown are not
// timed; teardown puts the tree back so the next case starts from the
// built state.
type benchCase struct {
	key, label string
	setup      func(round int) error
	run        func(round int) (sample, error)
	teardown   func(round int) error
}

// bed is one repository being measured, with the files each case edits.
type bed struct {
	fx      *fixture
	env     []string // PATH reaches the git-checkpoint under test; tracing on
	scratch string   // outside the tree: the fresh method's index
	tool    string   // "hook" or "changed": how the per-tool capture is driven
	tracked []string // the files the cases edit: fixture.files
	edited  []string // paths a case changed, for teardown
	created []string // paths a case created, for teardown
	syncID  string   // the checkpoint the rewind case goes back to
	// run is unique to this run of the benchmark and in every file a case
	// writes. A fixture outlives its runs, and so do the loose objects a
	// run wrote: content seen in an earlier run is hashed but not written
	// again, which spared a capture the compression and the object files
	// an agent's new edits cost.
	run string
	rv  rivalState // the rivals' methods (rivals.go)
}

// newBed is the bed of fx for one run.
func newBed(fx *fixture, env []string, scratch, tool string) *bed {
	return &bed{fx: fx, env: env, scratch: scratch, tool: tool, tracked: fx.files(),
		run: strconv.FormatInt(time.Now().UnixNano(), 36),
		rv:  rivalState{dir: filepath.Join(scratch, "rivals", fx.shape.key()), refs: map[string]string{}}}
}

func (b *bed) cases() []benchCase {
	none := func(int) error { return nil }
	cs := append([]benchCase{
		{key: "status", label: "git status", setup: b.settleStatus, teardown: none,
			run: func(int) (sample, error) { return b.timed(nil, nil, "git", "status") }},
		{key: "fresh", label: "fresh index + add -A + write-tree (Claude Code's per-Bash snapshot)", setup: b.dropFresh, teardown: b.dropFresh,
			run: b.fresh},
		{key: "clean", label: "git checkpoint, nothing changed", setup: func(r int) error { return b.sync(r) }, teardown: none,
			run: func(int) (sample, error) { return b.timed(nil, nil, "git", "checkpoint") }},
		{key: "change1", label: "git checkpoint, 1 file changed",
			setup:    func(r int) error { return b.sync(r, b.edit(r, b.pick(r, 1, 7919))...) },
			run:      func(int) (sample, error) { return b.timed(nil, nil, "git", "checkpoint") },
			teardown: b.restore},
		{key: "change100", label: "git checkpoint, 100 files in 100 dirs",
			setup:    func(r int) error { return b.sync(r, b.edit(r, b.spread(r, 100, 0))...) },
			run:      func(int) (sample, error) { return b.timed(nil, nil, "git", "checkpoint") },
			teardown: b.restore},
		{key: "new10", label: "git checkpoint, 10 new files",
			setup:    func(r int) error { return b.sync(r, b.create(r, 10)...) },
			run:      func(int) (sample, error) { return b.timed(nil, nil, "git", "checkpoint") },
			teardown: b.restore},
		{key: "tool", label: "per-tool capture of a Write (" + b.tool + ")",
			setup:    func(r int) error { return b.sync(r, b.edit(r, b.pick(r, 1, 104729))...) },
			run:      b.toolCapture,
			teardown: b.checkCaptured},
		{key: "burst", label: fmt.Sprintf("%d per-tool captures at once (%s), until all exit", burstCalls, b.tool),
			setup:    func(r int) error { return b.sync(r, b.create(r, burstCalls)...) },
			run:      b.burst,
			teardown: b.checkCaptured},
		b.parallelCase(),
		{key: "rewind100", label: "git rewind of 100 files",
			setup:    func(r int) error { return b.sync(r, b.edit(r, b.spread(r, 100, 7))...) },
			run:      b.rewind,
			teardown: b.checkRestored},
		{key: "rewindignore", label: "git rewind of 100 files, one the .gitignore",
			setup:    func(r int) error { return b.sync(r, append(b.edit(r, b.spread(r, 99, 11)), b.editIgnore(r))...) },
			run:      b.rewind,
			teardown: b.checkRestored},
	}, b.smallCases()...)
	for _, c := range cs {
		switch c.key {
		case "tool":
			cs = append(cs, b.besideWriter(c, "toolwriter", c.label+", beside a program writing to the disk"))
		case "rewind100":
			cs = append(cs, b.besideWriter(c, "rewindwriter", c.label+", beside a program writing to the disk"))
		}
	}
	return cs
}

// editIgnore appends a rule to the top .gitignore, as agents often do, one
// that ignores nothing the tree holds: a rewind that takes it back changes
// the rules of every path, which a rewind of other files does not. restore
// and checkRestored put it back as they do an edited file.
func (b *bed) editIgnore(r int) func() error {
	const p = ".gitignore"
	b.edited = append(b.edited, p)
	return func() error {
		orig, err := b.fx.original(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) { // a real tree may have none
			return err
		}
		rule := fmt.Sprintf("/.cache-%d-%s/\n", r, b.run)
		return os.WriteFile(filepath.Join(b.fx.dir, p), append(slices.Clip(orig), rule...), 0o644)
	}
}

// timed runs a command in the tree with the bench environment.
func (b *bed) timed(extraEnv []string, stdin []byte, name string, args ...string) (sample, error) {
	return timed(b.fx.dir, append(append([]string(nil), b.env...), extraEnv...), stdin, name, args...)
}

// settleStatus runs git status untimed first, as sync does for the
// checkpoint cases: the other cases' edits and restores leave stale stat
// data in the real index, and the first status after them pays for
// hashing those files and rewriting the index, which is not what a scan
// of an unchanged tree costs.
func (b *bed) settleStatus(int) error {
	_, err := b.timed(nil, nil, "git", "status")
	return err
}

// sync takes an untimed checkpoint, so the timed one starts from a private
// index that matches the tree, then applies the case's edits. The rewind
// case goes back to this checkpoint.
func (b *bed) sync(_ int, edits ...func() error) error {
	s, err := b.timed(nil, nil, "git", "checkpoint", "--json")
	if err != nil {
		return err
	}
	var rec struct{ ID string }
	if err := json.Unmarshal(s.stdout, &rec); err != nil || rec.ID == "" {
		return fmt.Errorf("git checkpoint --json printed %q", s.stdout)
	}
	b.syncID = rec.ID
	for _, e := range edits {
		if err := e(); err != nil {
			return err
		}
	}
	return nil
}

// pick returns n tracked files chosen by a stride that differs per round.
func (b *bed) pick(r, n, stride int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = b.tracked[((r+1)*stride+k*7)%len(b.tracked)]
	}
	return out
}

// spread returns n tracked files evenly spaced through the tree, so that
// with 20 files per directory each falls in a different directory (the
// worst case for write-tree).
func (b *bed) spread(r, n, offset int) []string {
	out := make([]string, n)
	step := len(b.tracked) / n
	for k := range out {
		out[k] = b.tracked[(k*step+r+offset)%len(b.tracked)]
	}
	return out
}

// edit appends a line to each file; restore writes the original back.
func (b *bed) edit(r int, files []string) []func() error {
	var out []func() error
	for _, p := range files {
		b.edited = append(b.edited, p)
		out = append(out, func() error {
			orig, err := b.fx.original(p)
			if err != nil {
				return err
			}
			content := append(slices.Clip(orig), fmt.Sprintf("edited in round %d of run %s\n", r, b.run)...)
			return os.WriteFile(filepath.Join(b.fx.dir, p), content, 0o644)
		})
	}
	return out
}

// create makes n new files in n different directories.
func (b *bed) create(r, n int) []func() error {
	var out []func() error
	for k, f := range b.spread(r, n, 3) {
		p := path.Join(path.Dir(f), fmt.Sprintf("new-%d-%d.txt", r, k))
		b.created = append(b.created, p)
		out = append(out, func() error {
			return os.WriteFile(filepath.Join(b.fx.dir, p), []byte(fmt.Sprintf("new file %s of run %s\n", p, b.run)), 0o644)
		})
	}
	return out
}

// restore undoes edit and create. The files get back an old mtime too: a
// file written in the same second as the index that records it is "racily
// clean" to git, and every scan until the index is rewritten a second
// later hashes it again and rewrites the index. Left as is, the benchmark's
// own restores would make the next few scans (of status as of checkpoint)
// pay for that in whichever case follows, instead of measuring a scan of
// a tree that changed a while ago.
func (b *bed) restore(int) error {
	for _, p := range b.edited {
		if err := b.putBack(p); err != nil {
			return err
		}
	}
	for _, p := range b.created {
		if err := os.Remove(filepath.Join(b.fx.dir, p)); err != nil {
			return err
		}
	}
	b.edited, b.created = nil, nil
	return nil
}

// putBack writes p's original content, dated an hour ago.
func (b *bed) putBack(p string) error {
	abs := filepath.Join(b.fx.dir, p)
	orig, err := b.fx.original(p)
	if errors.Is(err, fs.ErrNotExist) {
		return os.RemoveAll(abs) // the .gitignore editIgnore made
	} else if err != nil {
		return err
	}
	if err := os.WriteFile(abs, orig, 0o644); err != nil {
		return err
	}
	old := time.Now().Add(-time.Hour)
	return os.Chtimes(abs, old, old)
}

// checkCaptured makes sure the per-tool capture really took the change
// (a hook exits 0 and says nothing even when it fails): a full capture
// right after it must find nothing new and reuse it.
func (b *bed) checkCaptured(r int) error {
	s, err := b.timed(nil, nil, "git", "checkpoint", "--json")
	if err != nil {
		return err
	}
	var rec struct{ Reused bool }
	if err := json.Unmarshal(s.stdout, &rec); err != nil || !rec.Reused {
		return fmt.Errorf("the per-tool capture did not take the change (a full capture then made %s)", s.stdout)
	}
	return b.restore(r)
}

// checkRestored makes sure the rewind really put every edited file back,
// so a rewind that did nothing cannot pass as fast.
func (b *bed) checkRestored(int) error {
	for _, p := range b.edited {
		have, err := os.ReadFile(filepath.Join(b.fx.dir, p))
		orig, oerr := b.fx.original(p)
		if gone := errors.Is(oerr, fs.ErrNotExist); gone && errors.Is(err, fs.ErrNotExist) {
			continue // a .gitignore editIgnore made, gone again
		} else if gone {
			return fmt.Errorf("the rewind did not delete %s", p)
		}
		if err != nil {
			return err
		}
		if oerr != nil {
			return oerr
		}
		if !bytes.Equal(have, orig) {
			return fmt.Errorf("the rewind did not restore %s", p)
		}
		if err := b.putBack(p); err != nil {
			return err
		}
	}
	b.edited = nil
	return nil
}

func (b *bed) freshIndex() string { return filepath.Join(b.scratch, "fresh-index") }

func (b *bed) dropFresh(int) error {
	err := os.Remove(b.freshIndex())
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// fresh is the method of a peer tool: a new, empty index for every
// snapshot, so git hashes every file again.
func (b *bed) fresh(int) (sample, error) {
	env := []string{"GIT_INDEX_FILE=" + b.freshIndex()}
	s, err := b.timed(env, nil, "git", "add", "-A")
	if err != nil {
		return s, err
	}
	w, err := b.timed(env, nil, "git", "write-tree")
	s.add(w)
	return s, err
}

// toolCapture is what runs after an agent's Write: the Claude Code hook
// when this build has it, else the same partial capture through the
// option that names the changed file.
func (b *bed) toolCapture(int) (sample, error) {
	file := filepath.Join(b.fx.dir, b.edited[0])
	if b.tool == "hook" {
		return b.hook(b.writePayload("bench-session", file, "update"))
	}
	return b.timed(nil, nil, "git", "checkpoint", "--changed", file)
}

// hook runs Claude Code's hook as the agent does: the command install
// writes into its settings, through the shell, with the event on stdin.
func (b *bed) hook(event []byte) (sample, error) {
	return b.timed([]string{"CLAUDE_PROJECT_DIR=" + b.fx.dir}, event, "/bin/sh", "-c", agents.HookCommand("claude"))
}

// rewind restores the 100 edited files to the checkpoint taken before the
// edits: plan, safety checkpoint, staging, renames and verification.
// With agent turns in the journal the edits are a person's (made outside
// any turn), which a rewind keeps unless told to overwrite them.
func (b *bed) rewind(int) (sample, error) {
	if b.fx.shape.Turns > 0 {
		return b.timed(nil, nil, "git", "rewind", b.syncID, "--yes", "--outside=overwrite")
	}
	return b.timed(nil, nil, "git", "rewind", b.syncID, "--yes")
}
