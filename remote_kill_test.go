package checkpoint_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestPushKilled kills a push with SIGKILL while the remote holds it (its
// pack received, its refs not yet updated: a pre-receive hook waits), the
// push and every process it started. The remote must stay consistent: the
// records name only refs that exist there, and this store's refs are what
// the last whole push left. The next push completes it.
func TestPushKilled(t *testing.T) {
	env := gitEnv(t)
	base := t.TempDir()
	bare := filepath.Join(base, "remote.git")
	must(t, 0, base, env, "git", "init", "-q", "--bare", bare)
	a := newSideAt(t, env, base, bare)
	for i := 1; i <= 2; i++ {
		writeFile(t, filepath.Join(a.dir, "a.txt"), fmt.Sprintf("%d\n", i), 0o644)
		a.git(t, 0, "checkpoint", "-m", fmt.Sprint(i))
	}
	a.git(t, 0, "checkpoint", "push")
	id := a.storeID(t)
	prefix := "refs/checkpoints/stores/" + id + "/"
	before := remoteRefs(t, env, bare, prefix)
	if len(before) != 3 {
		t.Fatalf("after the first push the remote has %v", before)
	}

	// Two more checkpoints, and a remote that holds the next push of a
	// checkpoint ref: the hook says it runs, then waits for a file that
	// never comes. (A push of the records alone would pass: a push that
	// sent them apart from the refs they name would be caught.)
	for i := 3; i <= 4; i++ {
		writeFile(t, filepath.Join(a.dir, "a.txt"), fmt.Sprintf("%d\n", i), 0o644)
		a.git(t, 0, "checkpoint", "-m", fmt.Sprint(i))
	}
	running, release := filepath.Join(base, "hook-running"), filepath.Join(base, "hook-release")
	hook := fmt.Sprintf("#!/bin/sh\ngrep -q '/[0-9][0-9]*$' || exit 0\ntouch %s\nwhile [ ! -e %s ]; do sleep 0.05; done\n", running, release)
	writeFile(t, filepath.Join(bare, "hooks", "pre-receive"), hook, 0o755)

	cmd, stdout, stderr := command(a.dir, a.env, "git", "checkpoint", "push")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; !exists(running); i++ {
		if i == 2000 {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("the remote's hook never ran:\n%s%s", stdout, stderr)
		}
		exec.Command("sleep", "0.05").Run()
	}
	// The push, git push and the receive-pack it runs (file://) with its
	// hook: the whole process group.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := finish(t, cmd, stdout, stderr); !r.signaled {
		t.Fatalf("the push ended by itself: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	after := remoteRefs(t, env, bare, prefix)
	if !maps.Equal(after, before) {
		t.Fatalf("the killed push changed the remote's refs:\nbefore %v\nafter  %v", before, after)
	}
	consistent(t, env, bare, id, after)

	// The next push, the remote no longer held, completes it.
	if err := os.Remove(filepath.Join(bare, "hooks", "pre-receive")); err != nil {
		t.Fatal(err)
	}
	r := a.git(t, 0, "checkpoint", "push")
	if !strings.Contains(r.stdout, "published 2 checkpoints to origin: k3 k4") {
		t.Fatalf("the push after the kill:\n%s%s", r.stdout, r.stderr)
	}
	final := remoteRefs(t, env, bare, prefix)
	if len(final) != 5 {
		t.Fatalf("after the next push the remote has %v, want k1..k4 and the records", final)
	}
	consistent(t, env, bare, id, final)
	if got := strings.Join(recordedNumbers(t, env, bare, id), " "); got != "1 2 3 4" {
		t.Fatalf("the records name %s, want 1 2 3 4", got)
	}
	for n := 1; n <= 4; n++ {
		local := strings.TrimSpace(a.git(t, 0, "rev-parse", "refs/checkpoints/main/"+strconv.Itoa(n)).stdout)
		if got := final[prefix+strconv.Itoa(n)]; got != local {
			t.Fatalf("k%d is %s on the remote, %s here", n, got, local)
		}
	}
}

// newSideAt is a clone of bare, after a first commit pushed to it.
func newSideAt(t *testing.T, env []string, base, bare string) side {
	t.Helper()
	seed := filepath.Join(base, "seed")
	must(t, 0, base, env, "git", "init", "-q", seed)
	writeFile(t, filepath.Join(seed, "a.txt"), "a\n", 0o644)
	must(t, 0, seed, env, "git", "add", ".")
	must(t, 0, seed, env, "git", "commit", "-q", "-m", "init")
	must(t, 0, seed, env, "git", "push", "-q", bare, "HEAD:refs/heads/main")
	return newSide(t, "file://"+bare, "a")
}

// consistent fails unless every checkpoint the store's records name on the
// remote has its ref there.
func consistent(t *testing.T, env []string, bare, id string, refs map[string]string) {
	t.Helper()
	for _, n := range recordedNumbers(t, env, bare, id) {
		if refs["refs/checkpoints/stores/"+id+"/"+n] == "" {
			t.Fatalf("the records name checkpoint %s, whose ref is not on the remote: %v", n, slices.Sorted(maps.Keys(refs)))
		}
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
