package checkpoint_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/agenttest"
)

// TestEditorNeovim drives the Neovim plugin (editors/nvim) in a real,
// headless Neovim against a repository where Claude Code's hooks made one
// turn and `git checkpoint run` another, with a manual checkpoint between
// them: :CheckpointLog lists both prompts (a prompt's first line only)
// with their agents and change counts, newest first, and shows a
// checkpoint taken elsewhere by itself; <CR> on a turn opens
// its diff, a deleted and an untracked new file included; a cancelled
// :CheckpointUndoTurn changes nothing, an unknown turn shows the CLI's
// error, a plan whose file changed while the question was asked is
// refused (the plugin applies the plan id it showed); a confirmed one applies the plan it showed, which takes out the
// first turn and keeps the second on disk, and the log shows the rewind,
// whose checkpoint's <CR> shows what it changed.
// A second Neovim undoes that rewind with :CheckpointUndoRewind; a third
// rewinds to before t2 over a person's edit, which it keeps when the
// person chooses so.
func TestEditorNeovim(t *testing.T) {
	nvim := lookNvim(t)
	// Neovim reads the plugin and the driver, this test does not.
	agenttest.WatchSources(t, func(rel string) bool {
		return strings.HasPrefix(rel, "editors/nvim/") || strings.HasPrefix(rel, "testdata/nvim/")
	})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := gitEnv(t)
	must(t, 0, dir, env, "git", "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "a.txt"), "one\n", 0o644)
	writeFile(t, filepath.Join(dir, "old.txt"), "old\n", 0o644)
	must(t, 0, dir, env, "git", "add", ".")
	must(t, 0, dir, env, "git", "commit", "-q", "-m", "first")
	initial := manifest(t, dir)
	hook := func(event, extra string) {
		t.Helper()
		payload := `{"session_id":"s1","cwd":"` + dir + `","hook_event_name":"` + event + `"` + extra + `}`
		if r := runInput(t, dir, env, payload, "git", "checkpoint", "hook", "claude"); r.code != 0 || r.stdout != "" {
			t.Fatalf("hook %s: exit %d\n%s%s", event, r.code, r.stdout, r.stderr)
		}
	}
	hook("UserPromptSubmit", `,"prompt":"add a greeting\nand say why"`)
	writeFile(t, filepath.Join(dir, "hello.txt"), "hello\n", 0o644)
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\n", 0o644)
	hook("Stop", `,"stop_hook_active":false`)
	must(t, 0, dir, env, "git", "checkpoint", "-q", "-m", "before the cleanup")
	must(t, 0, dir, env, "git", "checkpoint", "-q", "run", "--", "sh", "-c", "rm old.txt && echo notes > notes.txt")
	afterTurns := manifest(t, dir)

	// phase: the log, the diffs, a cancelled undo, an error, the undo of t1
	got := driveNvim(t, nvim, dir, env, "undo_turn")
	log := strings.Join(got.Log.Lines, "\n")
	rows := regexp.MustCompile(`(?m)^(t\d|k\d)  +\d+s ago  +(\S+)  +(~\d \+\d -\d)  +\S+  +(.*)$`).FindAllStringSubmatch(log, -1)
	var list []string
	for _, r := range rows {
		list = append(list, strings.Join(r[1:], "|"))
	}
	want := []string{
		"t2|run|~0 +1 -1|sh -c rm old.txt && echo notes > notes.txt",
		"k3|manual|~0 +0 -0|before the cleanup",
		"t1|claude|~1 +1 -0|add a greeting",
	}
	if strings.Join(list, "\n") != strings.Join(want, "\n") {
		t.Fatalf(":CheckpointLog lists\n%s\nwant\n%s\nthe buffer:\n%s\nmessages:\n%s", strings.Join(list, "\n"), strings.Join(want, "\n"), log, got.Messages)
	}
	if strings.Contains(log, "and say why") || !strings.HasPrefix(got.Log.Name, "checkpoint://log") {
		t.Errorf("the log buffer %q shows more than the prompt's first line:\n%s", got.Log.Name, log)
	}
	if !got.Refreshed {
		t.Errorf("a checkpoint taken outside Neovim did not show in the open log")
	}
	diff2 := strings.Join(got.DiffT2.Lines, "\n")
	for _, s := range []string{"diff --git a/old.txt b/old.txt\ndeleted file mode", "-old", "diff --git a/notes.txt b/notes.txt\nnew file mode", "+notes"} {
		if !strings.Contains(diff2, s) {
			t.Errorf("<CR> on t2: the diff split lacks %q:\n%s", s, diff2)
		}
	}
	diff1 := strings.Join(got.DiffT1.Lines, "\n")
	for _, s := range []string{"+++ b/a.txt", "+two", "diff --git a/hello.txt b/hello.txt\nnew file mode", "+hello"} {
		if !strings.Contains(diff1, s) {
			t.Errorf("<CR> on t1: the diff split lacks %q:\n%s", s, diff1)
		}
	}
	if strings.Contains(diff1, "notes") || !strings.HasSuffix(got.DiffT1.Name, "/t1") {
		t.Errorf("<CR> on t1 shows %q, with changes of t2:\n%s", got.DiffT1.Name, diff1)
	}
	if got.Windows != 2 {
		t.Errorf("two diffs opened %d windows, want the log and one diff split", got.Windows)
	}
	if got.HelloAfterCancel != 1 || len(got.CancelledPlan) != 0 || !strings.Contains(got.Messages, "Undo t1: cancelled, nothing changed") {
		t.Errorf("a cancelled undo: hello.txt readable %d, plan split %q, messages:\n%s", got.HelloAfterCancel, got.CancelledPlan, got.Messages)
	}
	if !strings.Contains(got.Messages, "git-checkpoint: no turn t99") {
		t.Errorf(":CheckpointUndoTurn t99 does not show the CLI's error; messages:\n%s", got.Messages)
	}
	if strings.Join(got.AfterStale.A, "\n") != "one\ntwo" || got.AfterStale.Hello != 1 ||
		!strings.Contains(got.Messages, "git-checkpoint: the working tree changed since plan p1-") {
		t.Errorf("a plan gone stale while asked: a.txt holds %q, hello.txt readable %d; messages:\n%s", got.AfterStale.A, got.AfterStale.Hello, got.Messages)
	}
	plan := strings.Join(got.Plan, "\n")
	id := regexp.MustCompile(`(?m)^plan (p1-[0-9a-f]{16})  reverses t1 \(k1\.\.k2\)$`).FindStringSubmatch(plan)
	if id == nil || !regexp.MustCompile(`(?m)^  delete +turn +hello\.txt$`).MatchString(plan) ||
		!regexp.MustCompile(`(?m)^  modify +turn +a\.txt$`).MatchString(plan) || strings.Contains(plan, "notes.txt") {
		t.Fatalf("the plan split of :CheckpointUndoTurn on t1:\n%s\nmessages:\n%s\nerror: %s", plan, got.Messages, got.Error)
	}
	if !strings.Contains(plan, "applied plan "+id[1]+"; safety checkpoint k") {
		t.Fatalf("the plan shown, %s, is not the one applied:\n%s\nmessages:\n%s", id[1], plan, got.Messages)
	}
	if got.Error != "" {
		t.Fatalf("the drive stopped: %s\nmessages:\n%s", got.Error, got.Messages)
	}

	// phase: on disk, t1 is gone and t2 stays; the log shows the rewind
	wantTree := map[string]string{}
	for p, m := range afterTurns {
		wantTree[p] = m
	}
	delete(wantTree, "hello.txt")
	wantTree["a.txt"] = initial["a.txt"]
	sameTree(t, "the tree after undoing t1", wantTree, manifest(t, dir))
	var doc struct {
		Checkpoints []struct{ ID, Reason, Label string } `json:"checkpoints"`
	}
	r := must(t, 0, dir, env, "git", "checkpoint", "log", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Checkpoints) == 0 || doc.Checkpoints[0].Reason != "rewind" || !strings.Contains(doc.Checkpoints[0].Label, "t1") {
		t.Fatalf("git checkpoint log does not show the rewind of t1 newest:\n%s", r.stdout)
	}
	if after := strings.Join(got.LogAfter.Lines, "\n"); !strings.Contains(after, doc.Checkpoints[0].ID+"  ") {
		t.Errorf("the log buffer was not refreshed with %s:\n%s", doc.Checkpoints[0].ID, after)
	}

	diffRewind := strings.Join(got.DiffRewind.Lines, "\n")
	if !strings.Contains(diffRewind, "diff --git a/hello.txt b/hello.txt\ndeleted file mode") || !strings.Contains(diffRewind, "-two") ||
		strings.Contains(diffRewind, "notes") {
		t.Errorf("<CR> on the rewind's checkpoint does not show what it changed since the one before it:\n%s", diffRewind)
	}

	// phase: another Neovim undoes the rewind: the tree is the turns' again
	got = driveNvim(t, nvim, dir, env, "undo_rewind")
	if plan := strings.Join(got.Plan, "\n"); got.Error != "" || !strings.Contains(plan, "applied plan p1-") {
		t.Fatalf(":CheckpointUndoRewind:\n%s\nmessages:\n%s\nerror: %s", plan, got.Messages, got.Error)
	}
	sameTree(t, "the tree after undoing the rewind", afterTurns, manifest(t, dir))

	// phase: a rewind to before t2 over a person's edit of a.txt, which is
	// refused until the person chooses to keep it
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nmine\n", 0o644)
	mine := manifest(t, dir)["a.txt"]
	got = driveNvim(t, nvim, dir, env, "rewind_outside")
	plan = strings.Join(got.Plan, "\n")
	if got.Error != "" || !strings.HasPrefix(plan, "Rewind to before t2:  git rewind t2 --outside=keep\n") ||
		!regexp.MustCompile(`(?m)^  delete +turn +notes\.txt$`).MatchString(plan) || !strings.Contains(plan, "applied plan p1-") {
		t.Fatalf(":CheckpointRewind t2 keeping the outside edit:\n%s\nmessages:\n%s\nerror: %s", plan, got.Messages, got.Error)
	}
	wantTree = map[string]string{"a.txt": mine, "old.txt": initial["old.txt"], "hello.txt": afterTurns["hello.txt"]}
	sameTree(t, "the tree after the rewind to before t2", wantTree, manifest(t, dir))
}

// nvimDrive is what testdata/nvim/drive.lua saw.
type nvimDrive struct {
	Log              nvimBuffer `json:"log"`
	DiffT2           nvimBuffer `json:"diff_t2"`
	DiffT1           nvimBuffer `json:"diff_t1"`
	LogAfter         nvimBuffer `json:"log_after"`
	DiffRewind       nvimBuffer `json:"diff_rewind"`
	Windows          int        `json:"windows"`
	Refreshed        bool       `json:"refreshed"`
	CancelledPlan    []string   `json:"cancelled_plan"` // none: the split closes
	HelloAfterCancel int        `json:"hello_after_cancel"`
	AfterStale       struct {
		A     []string `json:"a"`
		Hello int      `json:"hello"`
	} `json:"after_stale"`
	Plan     []string `json:"plan"`
	Messages string   `json:"messages"`
	Error    string   `json:"error"`
}

// nvimBuffer is a buffer's name and lines.
type nvimBuffer struct {
	Name  string   `json:"name"`
	Lines []string `json:"lines"`
}

// lookNvim finds Neovim, or skips the test saying why; in CI, where .ci/run
// installs it, its absence fails the test.
func lookNvim(t *testing.T) string {
	t.Helper()
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		agenttest.Missing(t, "nvim is not installed, so the Neovim plugin cannot be driven (apt-get install neovim; .ci/run installs it)")
	}
	return nvim
}

// driveNvim runs testdata/nvim/drive.lua's scene in a headless Neovim in
// dir, with the plugin on its runtimepath and no configuration of the
// user's (-u NORC loads plugins but no init file; no shada; a fresh HOME
// and XDG directories), and returns what the script saw.
func driveNvim(t *testing.T, nvim, dir string, env []string, scene string) nvimDrive {
	t.Helper()
	plugin, err := filepath.Abs(filepath.Join("editors", "nvim"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "nvim", "drive.lua"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	outFile := filepath.Join(home, "drive.json")
	env = append(env, "NVIM_DRIVE_SCENE="+scene, "NVIM_DRIVE_OUT="+outFile,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_CONFIG_DIRS="+filepath.Join(home, "config-dirs"), "XDG_DATA_DIRS="+filepath.Join(home, "data-dirs"),
		"NVIM_LOG_FILE="+filepath.Join(home, "nvim.log"), "VIMINIT=", "TERM=dumb")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NORC", "-i", "NONE", "-n",
		"--cmd", "set rtp^="+plugin, "-c", "luafile "+script)
	cmd.Dir, cmd.Env = dir, env
	output, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("nvim (scene %s) did not finish in 60s:\n%s", scene, output)
	}
	if err != nil {
		t.Fatalf("nvim (scene %s): %v\n%s", scene, err, output)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("nvim (scene %s) wrote nothing: %v\n%s", scene, err, output)
	}
	var got nvimDrive
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("nvim (scene %s) wrote %s: %v", scene, data, err)
	}
	t.Logf("nvim (scene %s) printed:\n%s", scene, output)
	return got
}
