package bench

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// burstCalls is how many hook calls the burst case sends at once: a burst
// of parallel tool calls from several sessions.
const burstCalls = 50

// burstSessions is how many sessions the burst's calls come from.
const burstSessions = 5

// burst starts burstCalls per-tool captures at once, each for one of the
// files the setup created, and times them from the first start to the last
// exit: how long the lock queue takes to drain, which is what the last
// agent in the queue waits. Its CPU time and process count are the sums
// over the calls. checkCaptured then proves every file was taken.
func (b *bed) burst(int) (sample, error) { return b.hooksAtOnce(burstSessions) }

// hooksAtOnce starts one per-tool capture for every file the setup
// created, all at the same moment, from the given number of sessions, and
// times them from the first start to the last exit.
func (b *bed) hooksAtOnce(sessions int) (sample, error) {
	samples := make([]sample, len(b.created))
	errs := make([]error, len(b.created))
	payloads := make([][]byte, len(b.created))
	for i, p := range b.created {
		payloads[i] = b.writePayload(fmt.Sprintf("bench-session-%d", i%sessions), filepath.Join(b.fx.dir, p), "create")
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range b.created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if b.tool == "hook" {
				samples[i], errs[i] = b.hook(payloads[i])
			} else {
				samples[i], errs[i] = b.timed(nil, nil, "git", "checkpoint", "--changed", filepath.Join(b.fx.dir, p))
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	var s sample
	for i := range samples {
		if errs[i] != nil {
			return s, errs[i]
		}
		s.add(samples[i])
	}
	s.dur = time.Since(began)
	return s, nil
}

// writePayload is Claude Code's PostToolUse payload of a Write of file;
// change is "create" or "update".
func (b *bed) writePayload(session, file, change string) []byte {
	payload, _ := json.Marshal(map[string]any{
		"session_id": session, "transcript_path": filepath.Join(b.scratch, "transcript.jsonl"),
		"cwd": b.fx.dir, "hook_event_name": "PostToolUse", "tool_name": "Write",
		"tool_input":    map[string]any{"file_path": file, "content": "x"},
		"tool_response": map[string]any{"type": change, "filePath": file},
		"tool_use_id":   "toolu_bench",
	})
	return payload
}
