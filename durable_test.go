package checkpoint_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRewindSyncOrder traces the system calls of a rewind and checks the
// order that makes it safe against a power loss, not only a crash of the
// process (docs/fault-safety.md, "Power loss"): the safety checkpoint's ref
// and objects, then its journal line, are on disk before rewind_started;
// rewind_started is on disk before the tree is touched; the staged files
// are on disk (each synced) before the first of them is renamed into the
// tree; and every directory of the tree whose entries changed is synced
// before rewind_ended, with the checkpoint after the rewind, whose ref is
// on disk before its journal line; none of it by a syncfs.
func TestRewindSyncOrder(t *testing.T) {
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	for i := 0; i < 5; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("a/f%d.txt", i)), fmt.Sprintf("a %d\n", i), 0o644)
		writeFile(t, filepath.Join(dir, fmt.Sprintf("b/c/g%d.txt", i)), fmt.Sprintf("b %d\n", i), 0o644)
	}
	writeFile(t, filepath.Join(dir, "top.txt"), "top\n", 0o644)
	// f/ holds one file, another one later: the rewind empties it,
	// removes it, and makes it again for the file it puts back, whose
	// entry is in the new directory, not the removed one.
	writeFile(t, filepath.Join(dir, "f/only.txt"), "only\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "start")
	os.Remove(filepath.Join(dir, "f/only.txt"))
	writeFile(t, filepath.Join(dir, "f/other.txt"), "other\n", 0o644)
	for i := 0; i < 5; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("a/f%d.txt", i)), fmt.Sprintf("a %d changed\n", i), 0o644)
	}
	os.RemoveAll(filepath.Join(dir, "b"))
	writeFile(t, filepath.Join(dir, "top.txt"), "top changed\n", 0o644)
	writeFile(t, filepath.Join(dir, "new/n.txt"), "new\n", 0o644)
	tree, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	calls := traced(t, dir, env, "git", "rewind", "k1", "--yes")

	safety := refThenJournal(t, calls, 0, "refs/checkpoints/main/2")
	started := find(calls, 0, journalWrite("rewind_started"))
	if started < safety {
		t.Fatalf("rewind_started (call %d) is written before the safety checkpoint is on disk (call %d)", started, safety)
	}
	startedSync := find(calls, started, journalSync)
	inTree := func(d string) bool {
		return (d == tree || strings.HasPrefix(d, tree+"/")) && d != tree+"/.git" && !strings.HasPrefix(d, tree+"/.git/")
	}
	intoTree := func(c call) bool {
		d, _ := renameTo(c)
		return isRename(c) && inTree(d) && strings.Contains(renameFrom(c), "/staging/rewind-")
	}
	touches := func(c call) bool { return intoTree(c) || c.name == "unlinkat" && inTree(c.fdPath(0)) }
	first := find(calls, 0, touches)
	if first < 0 {
		t.Fatal("the trace shows no rename into the tree and no deletion")
	}
	if startedSync < 0 || startedSync > first {
		t.Fatalf("the tree is changed (call %d: %s) before rewind_started is synced (call %d)", first, calls[first].name, startedSync)
	}

	firstRename := find(calls, 0, intoTree)
	staged := map[string]int{} // staged file: the call that made it
	for i, c := range calls[:firstRename] {
		if c.name == "openat" && strings.Contains(c.args, "O_CREAT") && strings.Contains(c.args, "/staging/rewind-") {
			staged[c.str(1)] = i
		}
	}
	if len(staged) == 0 {
		t.Fatal("the trace shows no staged file")
	}
	for f, made := range staged {
		if s := find(calls, made, func(c call) bool { return isSync(c) && c.fdPath(0) == f || c.name == "syncfs" }); s < 0 || s > firstRename {
			t.Fatalf("a staged file is renamed into the tree (call %d: %s) before %s is synced (call %d)", firstRename, calls[firstRename].args, f, s)
		}
	}

	ended := find(calls, first, journalWrite("rewind_ended"))
	if ended < 0 {
		t.Fatal("no rewind_ended line")
	}
	changed := map[string]int{} // directory: index of its last change
	for i, c := range calls[:ended] {
		switch {
		case intoTree(c):
			d, _ := renameTo(c)
			changed[d] = i
		case c.name == "unlinkat" && inTree(c.fdPath(0)):
			changed[c.fdPath(0)] = i
		}
	}
	var unsynced []string
	for d, last := range changed {
		if _, err := os.Stat(d); err != nil {
			continue // removed: its parent's sync is what keeps that
		}
		// An fsync of the directory, or a syncfs of its filesystem made
		// through the tree (the one the capture after the rewind makes
		// through .git is not always there: a capture that reuses a
		// checkpoint syncs nothing but its journal line).
		synced := func(c call) bool {
			return isSync(c) && c.fdPath(0) == d || c.name == "syncfs" && inTree(c.fdPath(0)) && sameFilesystem(c.fdPath(0), d)
		}
		if s := find(calls, last, synced); s < 0 || s > ended {
			unsynced = append(unsynced, strings.TrimPrefix(d, tree))
		}
	}
	if len(unsynced) > 0 {
		t.Fatalf("directories of the tree changed and not synced before rewind_ended: %q", unsynced)
	}

	// The checkpoint after the rewind: its ref and objects too are on
	// disk before its journal line. And the rewind syncs what it wrote,
	// never the filesystem, which would wait for every program's writes.
	refThenJournal(t, calls, first, "refs/checkpoints/main/3")
	noSyncfs(t, calls, "a rewind")
}

// TestCaptureSyncOrder traces a capture: the ref and the objects it names
// reach the disk before the journal line that records the checkpoint (a
// ref without a record is adopted; a record without its ref would be a
// checkpoint lost), and a capture that finds nothing changed syncs nothing
// but its journal line.
func TestCaptureSyncOrder(t *testing.T) {
	env := gitEnv(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a/one.txt"), "one\n", 0o644)
	writeFile(t, filepath.Join(dir, "two.txt"), "two\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "first")
	writeFile(t, filepath.Join(dir, "two.txt"), "two changed\n", 0o644)

	calls := traced(t, dir, env, "git", "checkpoint", "-m", "second")
	refThenJournal(t, calls, 0, "refs/checkpoints/main/2")
	noSyncfs(t, calls, "a capture of one changed file")

	calls = traced(t, dir, env, "git", "checkpoint")
	if i := find(calls, 0, func(c call) bool { return c.name == "syncfs" }); i >= 0 {
		t.Fatalf("a capture that changed nothing synced the filesystem (call %d)", i)
	}
	w := find(calls, 0, journalWrite("checkpoint"))
	if w < 0 || find(calls, w, journalSync) < 0 {
		t.Fatal("the reuse record is not written and synced")
	}

	// Forty new files in forty directories: their blobs and trees go
	// into a pack, which reaches its name before the ref does, and whose
	// data (and its index's) are synced before they get their names: a
	// filesystem may make a rename durable before the data it names,
	// which a syncfs after the rename does not prevent (TestPowerLoss).
	for i := 0; i < 40; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("d%d/f.txt", i)), fmt.Sprintf("new %d\n", i), 0o644)
	}
	calls = traced(t, dir, env, "git", "checkpoint", "-m", "many")
	ref := find(calls, 0, func(c call) bool {
		return isRename(c) && strings.HasSuffix(renameFrom(c), "refs/checkpoints/main/3.lock")
	})
	packed := 0
	synced := map[string]bool{}
	for i, c := range calls {
		if isSync(c) && strings.Contains(c.fdPath(0), "/objects/pack/") {
			synced[c.fdPath(0)] = true
		}
		if isRename(c) && strings.Contains(renameFrom(c), "/objects/pack/tmp_") && !synced[renameFrom(c)] {
			t.Fatalf("call %d: %s is renamed into place before it is synced", i, renameFrom(c))
		}
		if (isRename(c) || c.name == "link" || c.name == "linkat") && strings.HasSuffix(c.args, `.pack"`) {
			packed++
			if ref >= 0 && i > ref {
				t.Fatalf("call %d: a pack reached its name after the ref (call %d)", i, ref)
			}
		}
	}
	if packed != 1 {
		t.Fatalf("%d packs were put in place, want 1", packed)
	}
	refThenJournal(t, calls, 0, "refs/checkpoints/main/3")

	// A file deleted, nothing new to store (a partial capture, which
	// splices the change into the last tree): its trees are written loose,
	// each synced before git links it to its name (git mktree, which
	// wrote them, reads no configuration, so core.fsync never reached it,
	// and a power loss left an empty tree under its name).
	os.Remove(filepath.Join(dir, "d0/f.txt"))
	calls = traced(t, dir, env, "git", "checkpoint", "--changed=d0/f.txt")
	synced = map[string]bool{}
	loose := 0
	for i, c := range calls {
		if isSync(c) && strings.Contains(c.fdPath(0), "/tmp_obj_") {
			synced[filepath.Base(c.fdPath(0))] = true
		}
		from := ""
		switch c.name {
		case "link":
			from = c.str(0)
		case "linkat":
			from = c.str(1)
		}
		if strings.Contains(from, "tmp_obj_") {
			loose++
			if !synced[filepath.Base(from)] {
				t.Fatalf("call %d: %s is linked into place before it is synced", i, from)
			}
		}
	}
	if loose < 2 {
		t.Fatalf("the capture of a deletion wrote %d loose objects, want its tree and its commit", loose)
	}
	refThenJournal(t, calls, 0, "refs/checkpoints/main/4")

	// A hook's capture of the file its tool call wrote: a pack and a ref,
	// their directories synced, not the filesystem.
	writeFile(t, filepath.Join(dir, "d1/f.txt"), "by the tool\n", 0o644)
	payload := filepath.Join(t.TempDir(), "event.json")
	writeFile(t, payload, string(claudePayload(t, dir, "5e550000-0000-4000-8000-00000000000d", "PostToolUse", "d1/f.txt")), 0o644)
	calls = traced(t, dir, env, "sh", "-c", `exec git checkpoint hook claude <"$0"`, payload)
	refThenJournal(t, calls, 0, "refs/checkpoints/main/5")
	noSyncfs(t, calls, "a hook's capture")

	// A capture killed after its ref, before its sync, leaves its mark:
	// what it wrote, and the private index's state the next capture builds
	// on, are in the page cache, unsynced. The next capture finds the mark
	// and syncs the filesystem; the one after it, the mark gone, does not.
	writeFile(t, filepath.Join(dir, "two.txt"), "two killed\n", 0o644)
	if r := run(t, dir, append(env, "GIT_CHECKPOINT_FAILPOINT=ref:kill"), "git", "checkpoint"); r.code == 0 {
		t.Fatal("the capture killed at its ref exited 0")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/checkpoints/unsynced")); err != nil {
		t.Fatalf("a capture stopped before its sync left no mark: %v", err)
	}
	writeFile(t, filepath.Join(dir, "two.txt"), "two after\n", 0o644)
	calls = traced(t, dir, env, "git", "checkpoint")
	if find(calls, 0, func(c call) bool { return c.name == "syncfs" }) < 0 {
		t.Fatal("the capture after one stopped before its sync did not sync the filesystem")
	}
	writeFile(t, filepath.Join(dir, "two.txt"), "two at last\n", 0o644)
	calls = traced(t, dir, env, "git", "checkpoint")
	noSyncfs(t, calls, "the capture after the one that found the mark")
}

// noSyncfs fails the test if the calls hold a syncfs: it writes out every
// program's data on the filesystem, and beside a build writing to it a
// hook waited for all of it (docs/fault-safety.md, "Power loss").
func noSyncfs(t *testing.T, calls []call, what string) {
	t.Helper()
	if i := find(calls, 0, func(c call) bool { return c.name == "syncfs" }); i >= 0 {
		t.Fatalf("%s synced the whole filesystem (call %d), not the directories it wrote", what, i)
	}
}

// sameFilesystem reports whether paths a and b, both still there, are on
// one filesystem.
func sameFilesystem(a, b string) bool {
	var sa, sb syscall.Stat_t
	return syscall.Stat(a, &sa) == nil && syscall.Stat(b, &sb) == nil && sa.Dev == sb.Dev
}
