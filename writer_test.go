package checkpoint_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func parseRewind(t *testing.T, r result) rewindDoc {
	t.Helper()
	var doc rewindDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("the rewind's result is not JSON: %v\n%s%s", err, r.stdout, r.stderr)
	}
	return doc
}

// pausedRewind starts `git rewind ARGS` and waits until it holds at the
// failpoint step, or ends without reaching it (a plan with no file to
// write); paused says which. resume lets it go on and returns how it
// ended.
func pausedRewind(t *testing.T, dir string, env []string, step string, args ...string) (paused bool, resume func() result) {
	t.Helper()
	pause := filepath.Join(t.TempDir(), "paused")
	cmd, stdout, stderr := command(dir, append(env, "GIT_CHECKPOINT_FAILPOINT="+step+":pause="+pause),
		"git", append([]string{"rewind"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan result, 1)
	go func() { ended <- finish(t, cmd, stdout, stderr) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		select {
		case r := <-ended:
			return false, func() result { return r }
		default:
		}
		if _, err := os.Lstat(pause); err == nil {
			return true, func() result {
				if err := os.Remove(pause); err != nil {
					t.Fatal(err)
				}
				return <-ended
			}
		}
	}
	cmd.Process.Kill()
	t.Fatalf("the rewind neither paused nor ended within 30 s (%s)", pause)
	return false, nil
}

// baseCheckpoint makes a repository holding files and takes its first
// checkpoint, k1.
func baseCheckpoint(t *testing.T, files map[string]string) (dir string, env []string) {
	t.Helper()
	env, dir = gitEnv(t), t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content, 0o644)
	}
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	must(t, 0, dir, env, "git", "checkpoint", "-m", "base")
	return dir, env
}

// TestRewindKeepsWritesDuringIt writes into the tree while a rewind holds
// between its safety checkpoint and its first write (invariant 9): the
// bytes written then are in no checkpoint, so the rewind must keep them
// (the path put back as the writer left it, listed as
// changed_during_rewind) and must not say the tree is exact. Each path
// the plan writes, creates and deletes is tried.
func TestRewindKeepsWritesDuringIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(dir string) // after k1, before the rewind
		write func(dir string) // during the rewind
		path  string
		want  string // the path's content after the rewind
	}{
		{
			name:  "modify",
			setup: func(dir string) { writeFile(t, filepath.Join(dir, "notes.txt"), "v2\n", 0o644) },
			write: func(dir string) {
				writeFile(t, filepath.Join(dir, "notes.txt"), "v3, typed during the rewind\n", 0o644)
			},
			path: "notes.txt", want: "v3, typed during the rewind\n",
		},
		{
			name:  "delete",
			setup: func(dir string) { writeFile(t, filepath.Join(dir, "new.txt"), "the agent's\n", 0o644) },
			write: func(dir string) {
				writeFile(t, filepath.Join(dir, "new.txt"), "a person's, during the rewind\n", 0o644)
			},
			path: "new.txt", want: "a person's, during the rewind\n",
		},
		{
			name:  "create",
			setup: func(dir string) { os.Remove(filepath.Join(dir, "notes.txt")) },
			write: func(dir string) { writeFile(t, filepath.Join(dir, "notes.txt"), "made during the rewind\n", 0o644) },
			path:  "notes.txt", want: "made during the rewind\n",
		},
		{
			name:  "written back to the checkpoint's bytes",
			setup: func(dir string) { writeFile(t, filepath.Join(dir, "notes.txt"), "v2\n", 0o644) },
			write: func(dir string) { writeFile(t, filepath.Join(dir, "notes.txt"), "v1\n", 0o644) },
			path:  "notes.txt", want: "v1\n",
		},
		{
			name:  "a directory made where a file goes",
			setup: func(dir string) { os.Remove(filepath.Join(dir, "notes.txt")) },
			write: func(dir string) { writeFile(t, filepath.Join(dir, "notes.txt", "inner"), "a person's\n", 0o644) },
			path:  "notes.txt/inner", want: "a person's\n",
		},
		{
			name:  "replaced by a directory",
			setup: func(dir string) { writeFile(t, filepath.Join(dir, "new.txt"), "the agent's\n", 0o644) },
			write: func(dir string) {
				os.Remove(filepath.Join(dir, "new.txt"))
				writeFile(t, filepath.Join(dir, "new.txt", "inner"), "a person's\n", 0o644)
			},
			path: "new.txt/inner", want: "a person's\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, env := baseCheckpoint(t, map[string]string{"notes.txt": "v1\n", "other.txt": "o1\n"})
			tc.setup(dir)
			writeFile(t, filepath.Join(dir, "other.txt"), "o2\n", 0o644)

			paused, resume := pausedRewind(t, dir, env, "staged", "k1", "--yes", "--json")
			if !paused {
				t.Fatalf("the rewind ended without pausing:\n%s", resume().stdout)
			}
			tc.write(dir)
			r := resume()
			if r.code != 0 {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			doc := parseRewind(t, r)
			if b, err := os.ReadFile(filepath.Join(dir, tc.path)); err != nil || string(b) != tc.want {
				t.Errorf("%s after the rewind: %q, %v; want the write made during it, %q", tc.path, b, err, tc.want)
			}
			if doc.Exact == nil || *doc.Exact {
				t.Errorf("the rewind says exact although %s was written during it:\n%s", tc.path, r.stdout)
			}
			top := strings.Split(tc.path, "/")[0]
			found := false
			for _, l := range doc.Left {
				if l.Path == top && l.Reason == "changed_during_rewind" {
					found = true
				}
			}
			if !found {
				t.Errorf("%s is not left as changed_during_rewind:\n%s", top, r.stdout)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "other.txt")); string(b) != "o1\n" {
				t.Errorf("other.txt, which nobody wrote during the rewind, was not restored: %q", b)
			}
		})
	}
}

// TestRewindKeepsAnOpenWriter holds a file open for writing across a
// rewind, as a log that a running program appends to: what it writes
// after the rewind must not go into a file the rewind deleted. The file
// is left where the writer's descriptor points, in the tree.
func TestRewindKeepsAnOpenWriter(t *testing.T) {
	dir, env := baseCheckpoint(t, map[string]string{"log.txt": "start\n"})
	f, err := os.OpenFile(filepath.Join(dir, "log.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, "one")
	r := must(t, 0, dir, env, "git", "rewind", "k1", "--yes", "--json")
	fmt.Fprintln(f, "two, after the rewind")
	doc := parseRewind(t, r)
	b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	if string(b) != "start\none\ntwo, after the rewind\n" {
		t.Errorf("log.txt after the rewind: %q; the writer's lines went elsewhere", b)
	}
	if doc.Exact == nil || *doc.Exact {
		t.Errorf("the rewind says exact although log.txt was open for writing:\n%s", r.stdout)
	}
}

// TestRewindWithAnAppender runs a rewind while another process appends
// numbered lines to the file it restores, opening it anew for each line
// (`while :; do echo line >> log.txt; done`), and checks that no line is
// lost: each is in the tree, in a checkpoint, or in a file the result
// names as kept. Rounds are bounded; no time is asserted.
func TestRewindWithAnAppender(t *testing.T) {
	dir, env := baseCheckpoint(t, map[string]string{"log.txt": "base\n"})

	var n atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			f, err := os.OpenFile(filepath.Join(dir, "log.txt"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				continue
			}
			i := n.Add(1)
			fmt.Fprintf(f, "line %d\n", i)
			f.Close()
		}
	}()
	var kept []string
	for round := 0; round < 5; round++ {
		r := must(t, 0, dir, env, "git", "rewind", "k1", "--yes", "--json", "--outside=overwrite")
		doc := parseRewind(t, r)
		for _, l := range doc.Left {
			if l.Kept != "" {
				kept = append(kept, l.Kept)
			}
		}
	}
	close(stop)
	wg.Wait()

	// Every place a line can be: the tree, every blob of log.txt in a
	// checkpoint, the files kept aside.
	var all strings.Builder
	b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	all.Write(b)
	revs := must(t, 0, dir, env, "git", "for-each-ref", "--format=%(objectname)", "refs/checkpoints/")
	for _, c := range strings.Fields(revs.stdout) {
		if r := run(t, dir, env, "git", "show", c+":log.txt"); r.code == 0 {
			all.WriteString(r.stdout)
		}
	}
	for _, k := range kept {
		b, err := os.ReadFile(k)
		if err != nil {
			t.Errorf("a kept file the result names cannot be read: %v", err)
		}
		all.Write(b)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(all.String(), "\n") {
		have[line] = true
	}
	lost := 0
	for i := int64(1); i <= n.Load(); i++ {
		if !have["line "+strconv.FormatInt(i, 10)] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d appended lines are in no checkpoint, not in the tree and in no kept file", lost, n.Load())
	}
	t.Logf("%d lines appended during 5 rewinds", n.Load())
}
