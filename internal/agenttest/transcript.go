package agenttest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// claudeSlugUnsafe is what Claude Code replaces with "-" when it turns a
// project path into the name of its transcript directory.
var claudeSlugUnsafe = regexp.MustCompile(`[^A-Za-z0-9]`)

// ClaudeTranscript returns where Claude Code keeps the transcript of a
// session started in projectDir with HOME home:
// ~/.claude/projects/SLUG/SESSION.jsonl, where SLUG is the project path
// with every character outside [A-Za-z0-9] replaced by "-". (Claude cuts
// slugs longer than 200 characters and adds a hash; temporary test
// directories are far shorter.)
func ClaudeTranscript(home, projectDir, session string) string {
	slug := claudeSlugUnsafe.ReplaceAllString(projectDir, "-")
	return filepath.Join(home, ".claude", "projects", slug, session+".jsonl")
}

// ReadJSONL reads a file of one JSON object a line, such as a transcript.
func ReadJSONL(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("agenttest: %v", err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("agenttest: %s: line %d: %v", path, len(out)+1, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("agenttest: %s: %v", path, err)
	}
	return out
}
