package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// wideShape is the second tree the benchmark measures, closer to a large
// generated or vendored tree and to a long session than the default one:
// every leaf directory straight under src/ (5,000 of 20 files at 100,000),
// sizes uniform from 1 to 8 KiB, an ignored build/ a fifth the size of the
// tree, and a journal already holding the checkpoints of wideTurns agent
// turns, so that reading and classifying it costs what it costs late in a
// session rather than in an empty store.
func wideShape(n int) Shape {
	turns := wideTurns
	if n < 10000 {
		turns = max(2, n/100)
	}
	return Shape{Name: "wide", Files: n, Ignored: n / 5, Seed: 2, Flat: true, Uniform: true, Turns: turns, words: vocabulary(2)}
}

// wideTurns turns of wideWrites tool captures each make about 350 records.
const (
	wideTurns  = 50
	wideWrites = 5
)

// The journal a build records is kept beside the repository and put back
// by every reset, so each run starts from the same long journal.
const (
	savedState = "bench-state"
	savedRefs  = "bench-state.refs"
)

// recordJournal runs the hooks of s.Turns Claude Code turns over the built
// tree (a turn start, wideWrites Writes each captured by its hook, a turn
// end), puts the files back, takes one full checkpoint of the clean tree
// and saves the state directory and checkpoint refs for restoreJournal.
func (f *fixture) recordJournal() error {
	s := f.shape
	if s.Turns == 0 {
		return nil
	}
	tracked := s.tracked()
	transcript := filepath.Join(f.dir, ".git", "bench-transcript.jsonl")
	if err := os.WriteFile(transcript, nil, 0o644); err != nil {
		return err
	}
	hook := func(payload map[string]any) error {
		payload["transcript_path"], payload["cwd"] = transcript, f.dir
		in, _ := json.Marshal(payload)
		env := append(append([]string(nil), f.env...), "CLAUDE_PROJECT_DIR="+f.dir)
		_, err := runQuiet(f.dir, env, in, "git", "checkpoint", "hook", "claude")
		return err
	}
	for t := 0; t < s.Turns; t++ {
		session := fmt.Sprintf("bench-session-%d", t%5)
		if err := hook(map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit",
			"prompt": fmt.Sprintf("turn %d", t)}); err != nil {
			return err
		}
		for w := 0; w < wideWrites; w++ {
			i := tracked[(t*wideWrites+w)*7919%len(tracked)]
			p := filepath.Join(f.dir, s.path(i))
			if err := os.WriteFile(p, append(s.content(i), fmt.Sprintf("turn %d\n", t)...), 0o644); err != nil {
				return err
			}
			if err := hook(map[string]any{"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Write",
				"tool_input":    map[string]any{"file_path": p, "content": "x"},
				"tool_response": map[string]any{"type": "update", "filePath": p},
				"tool_use_id":   fmt.Sprintf("toolu_%d_%d", t, w)}); err != nil {
				return err
			}
		}
		if err := hook(map[string]any{"session_id": session, "hook_event_name": "Stop", "stop_hook_active": false}); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"reset", "-q", "--hard"}, {"checkpoint"}, {"gc", "-q"}} {
		if _, err := f.git(nil, args...); err != nil {
			return err
		}
	}
	refs, err := f.git(nil, "for-each-ref", "--format=create %(refname) %(objectname)", "refs/checkpoints/")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.dir, ".git", savedRefs), refs, 0o644); err != nil {
		return err
	}
	return os.CopyFS(filepath.Join(f.dir, ".git", savedState), os.DirFS(filepath.Join(f.dir, ".git", "checkpoints")))
}

// restoreJournal puts back what recordJournal saved, after reset removed
// the state directory and the checkpoint refs; a shape with no journal
// saved nothing.
func (f *fixture) restoreJournal() error {
	refs, err := os.ReadFile(filepath.Join(f.dir, ".git", savedRefs))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.CopyFS(filepath.Join(f.dir, ".git", "checkpoints"), os.DirFS(filepath.Join(f.dir, ".git", savedState))); err != nil {
		return err
	}
	if strings.TrimSpace(string(refs)) == "" {
		return nil
	}
	_, err = f.git(refs, "update-ref", "--stdin")
	return err
}
