package gittest

import (
	"strings"
	"testing"
)

// TestRepoIsHermetic checks what every test relies on: branch main, no
// global configuration (the developer's would leak in), and commits by
// the fixed identity at the fixed date, so their ids are the same on
// every run.
func TestRepoIsHermetic(t *testing.T) {
	t.Setenv("GIT_DIR", "/nonexistent") // a developer's variable must not reach the tests
	r := NewRepoWith(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	if got := r.Git("symbolic-ref", "--short", "HEAD"); got != "main" {
		t.Errorf("branch %q, want main", got)
	}
	for _, line := range strings.Split(r.Git("config", "--list", "--show-origin"), "\n") {
		if !strings.HasPrefix(line, "file:.git/config\t") {
			t.Errorf("configuration from outside the repository: %q", line)
		}
	}
	if got := r.Git("log", "-1", "--format=%an <%ae> %aI|%cn <%ce> %cI"); got !=
		"A U Thor <author@example.com> 2026-01-02T03:04:05+00:00|C O Mitter <committer@example.com> 2026-01-02T03:04:05+00:00" {
		t.Errorf("commit by %q", got)
	}
	if got := r.Git("ls-files"); got != "a.txt\nd/b.txt" {
		t.Errorf("committed %q", got)
	}
	again := NewRepoWith(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	if a, b := r.Git("rev-parse", "HEAD"), again.Git("rev-parse", "HEAD"); a != b {
		t.Errorf("the same files gave commits %s and %s", a, b)
	}
	if out := r.GitInput("x\n", "hash-object", "--stdin"); !strings.HasPrefix(out, "587be6b") {
		t.Errorf("hash-object of stdin = %q", out)
	}
}
