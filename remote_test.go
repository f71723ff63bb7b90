package checkpoint_test

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// gitDaemon serves the bare repositories under base over git's own
// protocol on 127.0.0.1, pushes allowed (--enable=receive-pack), and stops
// it when the test ends. It returns the URL of base.
func gitDaemon(t *testing.T, env []string, base string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // free for the daemon, which binds it itself
	cmd, _, stderr := command(base, env, "git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // the daemon and the children serving
		cmd.Wait()
	})
	url := fmt.Sprintf("git://127.0.0.1:%d/", port)
	// Ready when it answers: ls-remote retries until then (bounded by
	// attempts, not by time).
	for i := 0; ; i++ {
		if run(t, base, env, "git", "ls-remote", url+"remote.git").code == 0 {
			return url
		}
		if i == 200 {
			t.Fatalf("git daemon never answered on port %d:\n%s", port, stderr)
		}
		exec.Command("sleep", "0.05").Run()
	}
}

// side is one machine: a clone of the remote with its own HOME.
type side struct {
	dir string
	env []string
}

func newSide(t *testing.T, url, name string) side {
	t.Helper()
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), name)
	must(t, 0, filepath.Dir(dir), env, "git", "clone", "-q", url, dir)
	return side{dir: dir, env: env}
}

func (s side) git(t *testing.T, want int, args ...string) result {
	t.Helper()
	return must(t, want, s.dir, s.env, "git", args...)
}

// storeID is what status prints.
func (s side) storeID(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(s.git(t, 0, "checkpoint", "status").stdout, "\n") {
		if id, ok := strings.CutPrefix(line, "store id     "); ok {
			return id
		}
	}
	t.Fatal("status printed no store id")
	return ""
}

// remoteRefs lists the refs under prefix in the bare repository.
func remoteRefs(t *testing.T, env []string, bare, prefix string) map[string]string {
	t.Helper()
	out := must(t, 0, bare, env, "git", "for-each-ref", "--format=%(refname) %(objectname)", prefix).stdout
	refs := map[string]string{}
	for _, line := range strings.Fields(strings.ReplaceAll(out, " ", "=")) {
		name, oid, _ := strings.Cut(line, "=")
		refs[name] = oid
	}
	return refs
}

// recordedNumbers are the checkpoint numbers a store's records name on the
// remote, each once.
func recordedNumbers(t *testing.T, env []string, bare, id string) []string {
	t.Helper()
	out := must(t, 0, bare, env, "git", "show", "refs/checkpoints/stores/"+id+"/records:records.jsonl").stdout
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		_, rest, ok := strings.Cut(line, `"n":`)
		if !ok {
			t.Fatalf("a record without a number: %s", line)
		}
		n, _, _ := strings.Cut(rest, ",")
		seen[n] = true
	}
	var ns []string
	for n := range seen {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// servedRemote makes a bare repository holding one commit on main, and
// serves it with git daemon: it returns the URL of the directory it is
// in (the repository is url+"remote.git") and its path.
func servedRemote(t *testing.T) (url, bare string) {
	t.Helper()
	env := gitEnv(t)
	base := t.TempDir()
	bare = filepath.Join(base, "remote.git")
	must(t, 0, base, env, "git", "init", "-q", "--bare", bare)
	seed := filepath.Join(base, "seed")
	must(t, 0, base, env, "git", "init", "-q", seed)
	writeFile(t, filepath.Join(seed, "a.txt"), "a\n", 0o644)
	must(t, 0, seed, env, "git", "add", ".")
	must(t, 0, seed, env, "git", "commit", "-q", "-m", "init")
	must(t, 0, seed, env, "git", "push", "-q", bare, "HEAD:refs/heads/main")
	return gitDaemon(t, env, base), bare
}

// TestPushGitDaemon pushes over a real network transport: two stores (two
// clones, two HOMEs) push at once to one remote served by git daemon, and
// both keep every ref; two pushes of one store at once both succeed (the
// one whose lease fails starts again); every record names a ref that
// exists there.
func TestPushGitDaemon(t *testing.T) {
	env := gitEnv(t)
	url, bare := servedRemote(t)

	a, b := newSide(t, url+"remote.git", "a"), newSide(t, url+"remote.git", "b")
	for i := 1; i <= 3; i++ {
		for _, s := range []side{a, b} {
			writeFile(t, filepath.Join(s.dir, "a.txt"), fmt.Sprintf("%s %d\n", s.dir, i), 0o644)
			s.git(t, 0, "checkpoint", "-m", fmt.Sprint(i))
		}
	}
	idA, idB := a.storeID(t), b.storeID(t)

	// Two stores at once.
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, s := range []side{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = run(t, s.dir, s.env, "git", "checkpoint", "push")
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || !strings.Contains(r.stdout, "published 3 checkpoints to origin: k1..k3") {
			t.Fatalf("push %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	for _, id := range []string{idA, idB} {
		refs := remoteRefs(t, env, bare, "refs/checkpoints/stores/"+id+"/")
		if len(refs) != 4 {
			t.Fatalf("store %s has %d refs on the remote, want 3 checkpoints and the records: %v", id, len(refs), refs)
		}
		if got := strings.Join(recordedNumbers(t, env, bare, id), " "); got != "1 2 3" {
			t.Fatalf("store %s's records name %s, want 1 2 3", id, got)
		}
	}
	localA := must(t, 0, a.dir, a.env, "git", "rev-parse", "refs/checkpoints/main/3").stdout
	if got := remoteRefs(t, env, bare, "refs/checkpoints/stores/"+idA+"/3")["refs/checkpoints/stores/"+idA+"/3"]; got != strings.TrimSpace(localA) {
		t.Fatalf("k3 of A is %s on the remote, %s here", got, localA)
	}

	// One store twice at once, after two more checkpoints: both succeed,
	// and the remote ends with every checkpoint and one record each.
	for i := 4; i <= 5; i++ {
		writeFile(t, filepath.Join(a.dir, "a.txt"), fmt.Sprintf("more %d\n", i), 0o644)
		a.git(t, 0, "checkpoint", "-m", fmt.Sprint(i))
	}
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = run(t, a.dir, a.env, "git", "checkpoint", "push")
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("push %d of the same store: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	if got := strings.Join(recordedNumbers(t, env, bare, idA), " "); got != "1 2 3 4 5" {
		t.Fatalf("store A's records name %s, want 1 2 3 4 5", got)
	}
	if refs := remoteRefs(t, env, bare, "refs/checkpoints/stores/"+idA+"/"); len(refs) != 6 {
		t.Fatalf("store A has %d refs on the remote, want 5 and the records: %v", len(refs), refs)
	}
	if refs := remoteRefs(t, env, bare, "refs/checkpoints/stores/"+idB+"/"); len(refs) != 4 {
		t.Fatalf("store B lost refs: %v", refs)
	}
	if r := a.git(t, 0, "checkpoint", "push"); !strings.Contains(r.stdout, "origin is up to date: store "+idA+", 5 checkpoints") {
		t.Fatalf("a third push was not up to date:\n%s", r.stdout)
	}
}

// TestPushSecretsGitDaemon is the reproduction over git's own
// protocol: an untracked .env and private key are refused (exit 5) and
// nothing reaches the remote; with --withhold they are left out, and no
// object the remote holds has them.
func TestPushSecretsGitDaemon(t *testing.T) {
	env := gitEnv(t)
	url, bare := servedRemote(t)

	a := newSide(t, url+"remote.git", "a")
	const key = "AKIANBHNV5MQVCRF7BPV"
	writeFile(t, filepath.Join(a.dir, ".env"), "AWS_ACCESS_KEY_ID="+key+"\n", 0o644)
	writeFile(t, filepath.Join(a.dir, "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n", 0o600)
	a.git(t, 0, "checkpoint", "-m", "wip")
	r := a.git(t, 5, "checkpoint", "push")
	if !strings.Contains(r.stderr, "error: the push would publish secrets found in 2 files: .env, id_ed25519") ||
		strings.Contains(r.stdout+r.stderr, key) {
		t.Fatalf("the refusal:\n%s%s", r.stdout, r.stderr)
	}
	if refs := remoteRefs(t, env, bare, "refs/checkpoints/"); len(refs) != 0 {
		t.Fatalf("a refused push left refs: %v", refs)
	}
	r = a.git(t, 0, "checkpoint", "push", "--withhold", ".env", "--withhold", "id_ed25519")
	if !strings.Contains(r.stdout, "withheld from origin: .env, id_ed25519 (k1)") {
		t.Fatalf("the push with --withhold:\n%s", r.stdout)
	}
	all := must(t, 0, bare, env, "git", "cat-file", "--batch-all-objects", "--batch").stdout
	if strings.Contains(all, key) || strings.Contains(all, "OPENSSH PRIVATE") {
		t.Fatal("the remote holds an object with the secrets")
	}
}
