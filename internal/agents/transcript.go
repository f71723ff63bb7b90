package agents

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
)

// tailBytes bounds how much of a transcript's end is read to find its last
// line: enough for any ordinary last message, and a fixed cost however
// long the conversation grew.
const tailBytes = 4 << 20

// LastLine returns the uuid of the last user or assistant line of a Claude
// Code transcript (JSON lines), or "" when there is none in its last
// tailBytes. At Stop that is the turn's last message, the point
// `claude --resume S --resume-session-at U` continues from.
func LastLine(path string) string {
	if !strings.HasSuffix(path, ".jsonl") {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	off := max(0, fi.Size()-tailBytes)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	if off > 0 {
		lines = lines[1:] // cut in the middle of a line
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var l struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			IsSidechain bool   `json:"isSidechain"`
		}
		if json.Unmarshal(lines[i], &l) != nil || l.UUID == "" || l.IsSidechain {
			continue
		}
		if l.Type == "user" || l.Type == "assistant" {
			return l.UUID
		}
	}
	return ""
}
