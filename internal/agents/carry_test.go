package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTranscriptPath(t *testing.T) {
	env := func(vars map[string]string) Env {
		return Env{Home: "/home/u", Getenv: func(k string) string { return vars[k] }}
	}
	got, err := TranscriptPath(env(nil), "/work/my repo.x", "abc-1")
	if want := "/home/u/.claude/projects/-work-my-repo-x/abc-1.jsonl"; err != nil || got != want {
		t.Errorf("TranscriptPath = %q, %v; want %q", got, err, want)
	}
	got, err = TranscriptPath(env(map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}), "/w", "s")
	if want := "/cfg/projects/-w/s.jsonl"; err != nil || got != want {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", ""} {
		if _, err := TranscriptPath(env(nil), "/w", bad); err == nil {
			t.Errorf("session %q names a file", bad)
		}
	}
	if _, err := TranscriptPath(env(nil), "/"+strings.Repeat("d", 200), "s"); err == nil {
		t.Errorf("a path whose project name Claude Code shortens was accepted")
	}
}

func TestPlaceTranscript(t *testing.T) {
	home := t.TempDir()
	env := Env{Home: home, Getenv: func(string) string { return "" }}
	path, err := PlaceTranscript(env, "/w", "s", []byte("one\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" || path != filepath.Join(home, ".claude", "projects", "-w", "s.jsonl") {
		t.Fatalf("placed %q at %s", b, path)
	}
	if _, err := PlaceTranscript(env, "/w", "s", []byte("one\n")); err != nil {
		t.Errorf("placing the same bytes again: %v", err)
	}
	if _, err := PlaceTranscript(env, "/w", "s", []byte("other\n")); err == nil {
		t.Errorf("another conversation under the same id was overwritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("the transcript there is now %q", b)
	}
}
