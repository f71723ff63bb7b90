package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"time"
)

// tailBytes bounds how much of a transcript's end is read to find its last
// line: enough for any ordinary last message, and a fixed cost however
// long the conversation grew.
const tailBytes = 4 << 20

// replyWait bounds how long LastLine waits for a turn's final reply to
// reach the transcript. Claude Code writes it a few milliseconds after the
// Stop hook starts, so the wait is short unless something is wrong, and
// the agent waits on the hook meanwhile.
const replyWait = 2 * time.Second

// LastLine returns the uuid of the line that ends the turn in a Claude
// Code transcript (JSON lines): the point `claude --resume S
// --resume-session-at U` continues from. That is the last user or
// assistant line of the main conversation, when it is a reply that ends a
// turn (an assistant line calling no tool); otherwise there is none and
// LastLine returns "". A subagent that runs in the foreground stops in the
// middle of the main agent's turn, while the main agent's tool call waits
// for it: a resume point there would lose the subagent's result.
//
// Claude Code appends to its transcript behind its hooks: when the Stop
// hook starts, the last lines of the turn (the last tool's result, the
// final reply) may not be written yet (seen with Claude Code 2.1.328), and
// the last line then is one from the middle of the turn. So when the
// event says what the final reply is, LastLine reads the transcript again
// until its last line is that reply, for up to replyWait (and half the
// time ctx leaves). If it never shows, it returns "" and an error: no
// resume point is better than one in the middle of a turn.
func LastLine(ctx context.Context, path, reply string) (string, error) {
	if !strings.HasSuffix(path, ".jsonl") {
		return "", nil
	}
	// Half the time left at most: the checkpoint is still to be taken.
	wait := replyWait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d)/2)
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		l, err := lastLine(path)
		if err != nil {
			return "", nil // no transcript to read
		}
		if reply == "" {
			// Nothing to wait for: the line as it is, if it ends a turn.
			if l.endsTurn() {
				return l.UUID, nil
			}
			return "", nil
		}
		if l.endsTurn() && l.isReply(reply) {
			return l.UUID, nil
		}
		select {
		case <-ctx.Done():
			return "", errors.New("the turn's final reply did not reach the transcript in time: no resume point recorded")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// transcriptLine is the part of a transcript line LastLine reads.
type transcriptLine struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	IsSidechain bool   `json:"isSidechain"`
	Message     struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// endsTurn reports whether the line is a reply that can end a turn: an
// assistant message that calls no tool.
func (l transcriptLine) endsTurn() bool {
	if l.Type != "assistant" {
		return false
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	json.Unmarshal(l.Message.Content, &blocks)
	for _, b := range blocks {
		if b.Type == "tool_use" {
			return false
		}
	}
	return true
}

// lastText is the text of the line's last text block.
func (l transcriptLine) lastText() string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(l.Message.Content, &blocks)
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].Type == "text" {
			return blocks[i].Text
		}
	}
	return ""
}

// isReply reports whether the line holds the end of reply, the text of a
// turn's final message. A message of several text blocks may be written
// as several lines, or one, and its blocks joined in reply in some way:
// its last block ends reply either way.
func (l transcriptLine) isReply(reply string) bool {
	last := strings.TrimSpace(l.lastText())
	return last != "" && strings.HasSuffix(strings.TrimSpace(reply), last)
}

// lastLine reads the last user or assistant line of the main conversation
// (not a subagent's sidechain, not a line cut short). A missing or odd
// file is an error; a file without such a line gives a zero line.
func lastLine(path string) (transcriptLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return transcriptLine{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return transcriptLine{}, errors.New("not a regular file")
	}
	off := max(0, fi.Size()-tailBytes)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return transcriptLine{}, err
	}
	lines := bytes.Split(buf, []byte("\n"))
	if off > 0 {
		lines = lines[1:] // cut in the middle of a line
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var l transcriptLine
		if json.Unmarshal(lines[i], &l) != nil || l.UUID == "" || l.IsSidechain {
			continue
		}
		if l.Type == "user" || l.Type == "assistant" {
			return l, nil
		}
	}
	return transcriptLine{}, nil
}
