package checkpoint_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// TestConcurrentWriters runs 20 `git checkpoint` processes and 10 hook-like
// callers (each edits a file, then checkpoints, as an agent's tool hook
// does), 5 readers and a rewind from another process, all at once, with a
// short checkpoint.lockTimeout. Each one succeeds or times out cleanly
// (exit 7, naming the lock holder); ids are unique, every ref resolves to
// its record, the journal parses and chains, and doctor finds nothing.
func TestConcurrentWriters(t *testing.T) {
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	for i := 0; i < 50; i++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("src/f%02d.txt", i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "init")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "start")
	writeFile(t, filepath.Join(dir, "src/f00.txt"), "edited before the storm\n", 0o644)
	must(t, 0, dir, env, "git", "config", "checkpoint.lockTimeout", "1s")

	type job struct {
		kind string
		args []string
		edit string // a file the caller writes first
	}
	var jobs []job
	for i := 0; i < 20; i++ {
		jobs = append(jobs, job{kind: "checkpoint", args: []string{"checkpoint", "--json", "-m", "c" + strconv.Itoa(i)},
			edit: fmt.Sprintf("src/f%02d.txt", i)})
	}
	for i := 0; i < 10; i++ {
		jobs = append(jobs, job{kind: "hook", args: []string{"checkpoint", "--json", "-q"}, edit: fmt.Sprintf("agent/h%02d.txt", i)})
	}
	for i := 0; i < 5; i++ {
		args := []string{"checkpoint", "list", "--json"}
		if i%2 == 1 {
			args = []string{"checkpoint", "status", "--json"}
		}
		jobs = append(jobs, job{kind: "reader", args: args})
	}
	jobs = append(jobs, job{kind: "rewind", args: []string{"rewind", "k1", "--yes", "--json"}})

	results := make([]result, len(jobs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, jb := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// Stagger the starts a little so that edits land between
			// captures, as they do in an agent's turn.
			time.Sleep(time.Duration(i%12) * 150 * time.Millisecond)
			if jb.edit != "" {
				writeFile(t, filepath.Join(dir, jb.edit), jb.edit+"\n", 0o644)
			}
			cmd, stdout, stderr := command(dir, env, "git", jb.args...)
			if err := cmd.Start(); err != nil {
				t.Error(err)
				return
			}
			results[i] = finish(t, cmd, stdout, stderr)
		}()
	}
	close(start)
	wg.Wait()

	holder := regexp.MustCompile(`^git-(checkpoint|rewind): error: the checkpoint store is locked by process [0-9]+\nhint: wait for it to finish, or raise checkpoint.lockTimeout \(now 1s\)\n$`)
	ids := map[string]bool{}
	counts := map[string]int{}
	for i, r := range results {
		jb := jobs[i]
		switch r.code {
		case 0:
			counts["ok"]++
		case 7:
			counts["timeout"]++
			if !holder.MatchString(r.stderr) {
				t.Errorf("%s timed out without naming the holder: %q", jb.kind, r.stderr)
			}
			continue
		default:
			t.Errorf("%s %v: exit %d\n%s%s", jb.kind, jb.args, r.code, r.stdout, r.stderr)
			continue
		}
		if jb.kind == "checkpoint" || jb.kind == "hook" {
			var rec store.Record
			if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
				t.Errorf("%s printed no record: %v\n%s", jb.kind, err, r.stdout)
				continue
			}
			if !rec.Reused {
				if ids[rec.ID] {
					t.Errorf("id %s was given twice", rec.ID)
				}
				ids[rec.ID] = true
			}
		}
	}
	t.Logf("%d processes at once: %d succeeded, %d timed out cleanly; %d new checkpoints",
		len(jobs), counts["ok"], counts["timeout"], len(ids))

	j := wholeJournal(t, filepath.Join(dir, ".git", "checkpoints"))
	refs := map[string]string{}
	out := must(t, 0, dir, env, "git", "for-each-ref", "--format=%(refname) %(objectname)", "refs/checkpoints/main/").stdout
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, oid, _ := strings.Cut(line, " ")
		refs[name] = oid
	}
	recorded := map[int]bool{}
	for _, rec := range j.Checkpoints() {
		if recorded[rec.N] {
			t.Errorf("the journal records k%d twice", rec.N)
		}
		recorded[rec.N] = true
		if got := refs["refs/checkpoints/main/"+strconv.Itoa(rec.N)]; got != rec.Commit {
			t.Errorf("%s: ref %q, record %q", rec.ID, got, rec.Commit)
		}
	}
	if len(recorded) != len(refs) {
		t.Errorf("%d records for %d refs", len(recorded), len(refs))
	}
	for id := range ids {
		n, _ := strconv.Atoi(strings.TrimPrefix(id, "k"))
		if !recorded[n] {
			t.Errorf("%s was printed but is not in the journal", id)
		}
	}
	must(t, 0, dir, env, "git", "checkpoint", "doctor")
}

// TestLockTimeoutNamesHolder holds the store lock from this process and
// checks that a checkpoint gives up after checkpoint.lockTimeout with exit
// 7, naming this process, and changes nothing.
func TestLockTimeoutNamesHolder(t *testing.T) {
	env := gitEnv(t)
	dir := filepath.Join(t.TempDir(), "tree")
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n", 0o644)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint")
	must(t, 0, dir, env, "git", "config", "checkpoint.lockTimeout", "200ms")
	st := &store.Store{Dir: filepath.Join(dir, ".git", "checkpoints"), Now: time.Now}
	unlock, err := st.Lock(context.Background(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n", 0o644)
	before := manifest(t, filepath.Join(dir, ".git", "refs"))
	for _, args := range [][]string{{"checkpoint"}, {"rewind", "k1", "--yes"}} {
		r := must(t, 7, dir, env, "git", args...)
		want := fmt.Sprintf("the checkpoint store is locked by process %d\nhint: wait for it to finish, or raise checkpoint.lockTimeout (now 200ms)\n", os.Getpid())
		if !strings.HasSuffix(r.stderr, want) || r.stdout != "" {
			t.Fatalf("git %s: stdout %q, stderr %q, want stderr ending %q", args[0], r.stdout, r.stderr, want)
		}
	}
	sameTree(t, "refs", before, manifest(t, filepath.Join(dir, ".git", "refs")))
}
