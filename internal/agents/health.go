package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// A protection that stops working must be seen: hook.log is where a
// hook's failures are explained, and hook-health.json beside it is what
// status, doctor and the next turn's hook read to say that they happen.
// It counts the failures since the last hook checkpoint that worked (a
// success clears that count: a hook that works again needs no alarm), and
// those no agent message has told the person of yet.
const healthFile = "hook-health.json"

// Failure is one hook call that took no checkpoint.
type Failure struct {
	At      time.Time `json:"at"`
	Agent   string    `json:"agent"`
	Event   string    `json:"event"`
	Message string    `json:"message"`
}

// Health is what the hooks of a working tree have done lately.
type Health struct {
	// Failures counts the hook calls that took no checkpoint since the
	// last one that did.
	Failures int      `json:"failures"`
	Last     *Failure `json:"last,omitempty"`
	// Untold counts the failures no agent message at a turn's start has
	// told the person of; a success does not clear it.
	Untold int `json:"untold,omitempty"`
}

// ReadHealth reads the record in stateDir; none is a healthy one.
func ReadHealth(stateDir string) Health {
	var h Health
	if b, err := os.ReadFile(filepath.Join(stateDir, healthFile)); err == nil {
		json.Unmarshal(b, &h)
	}
	return h
}

func writeHealth(stateDir string, h Health) {
	if b, err := json.Marshal(h); err == nil {
		writeAtomic(filepath.Join(stateDir, healthFile), b, store.PrivateFile)
	}
}

// Failed records a hook call that took no checkpoint, beside its line in
// hook.log. Hooks that fail at once may lose a count: it says "failing",
// not an exact tally.
func Failed(stateDir string, f Failure) {
	h := ReadHealth(stateDir)
	h.Failures++
	h.Untold++
	f.Message = printable(strings.Join(strings.Fields(f.Message), " "))
	if len(f.Message) > 300 {
		f.Message = f.Message[:300] + "..."
	}
	h.Last = &f
	writeHealth(stateDir, h)
}

// Worked records a hook call that took its checkpoint; it writes only when
// failures were counted.
func Worked(stateDir string) {
	if h := ReadHealth(stateDir); h.Failures > 0 {
		h.Failures = 0
		writeHealth(stateDir, h)
	}
}

// Untold returns the message for the person about failures no agent
// message mentioned yet, and records them as told; "" when there are none.
func Untold(stateDir string) string {
	h := ReadHealth(stateDir)
	if h.Untold == 0 || h.Last == nil {
		return ""
	}
	n := h.Untold
	h.Untold = 0
	writeHealth(stateDir, h)
	return fmt.Sprintf("git-checkpoint: %d hook %s took no checkpoint (the last: %s); run 'git checkpoint doctor'",
		n, fault.Plural(n, "call", "calls"), h.Last.Message)
}
