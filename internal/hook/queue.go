package hook

import (
	"context"
	"encoding/json"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/capture"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
	"github.com/git-checkpoint/git-checkpoint/internal/turns"
)

// Parallel tool calls fire their per-tool hooks at once. The first to
// take the store lock captures, and the others, instead of each waiting
// its turn to run the same git processes, leave their request in the
// store's queue and wait: the holder takes every waiting request as one
// group (capture.CaptureGroup) before it lets the lock go, and answers
// each. A hook whose request was answered has nothing left to do; one
// that was not (the holder died, or the capture needs a full scan) takes
// its checkpoint itself, as before.

// lock takes the store lock for a hook's capture. A per-tool capture that
// finds it taken asks the holder to take its checkpoint, then waits for
// the lock; answered says the holder did. unlock is nil when the hook
// was answered but gave up waiting for the lock.
func (h *call) lock(ctx context.Context, opts capture.Options) (unlock func(), answered bool, err error) {
	w := h.w
	deadline, _ := ctx.Deadline()
	if !opts.Groupable() {
		if unlock, ok := w.EarlyLock(); ok {
			return unlock, false, nil
		}
		unlock, err := w.Store.Lock(ctx, time.Until(deadline))
		return unlock, false, err
	}
	if unlock, ok := w.Store.TryLock(); ok {
		return unlock, false, nil
	}
	payload, _ := json.Marshal(opts)
	ask, askErr := w.Store.Ask(payload)
	if unlock, err = w.Store.Lock(ctx, time.Until(deadline)); err != nil {
		if ask == nil {
			return nil, false, err
		}
		// Withdrawn, unless the holder took it meanwhile: then the
		// checkpoint exists, and only the lock is not this hook's.
		if _, ok := ask.Answer(); ok {
			return nil, true, nil
		}
		return nil, false, err
	}
	if askErr != nil {
		return unlock, false, nil
	}
	_, answered = ask.Answer()
	return unlock, answered, nil
}

// takeWaiting takes the checkpoints the hooks waiting for the lock asked
// for, in one group, and answers each; those the group did not take are
// given back to their hooks. Its failure is theirs to meet and log: they
// then take their checkpoints themselves. j is the journal as the caller
// left it, or nil to read it. own, when set, is the caller's own capture,
// taken first in the group; took reports whether the group took it (on
// false the caller takes it itself, from the journal read again: the
// group may have failed half way).
func (h *call) takeWaiting(ctx context.Context, j *store.Journal, own *capture.Options) (took bool) {
	w := h.w
	asked := w.Store.Waiting()
	if len(asked) == 0 && own == nil {
		return false
	}
	if j == nil {
		var err error
		if j, err = w.Store.Journal(); err != nil {
			for _, q := range asked {
				q.Release()
			}
			return false
		}
	}
	var opts []capture.Options
	var from []*store.Asked // nil for own
	if own != nil {
		opts, from = append(opts, *own), append(from, nil)
	}
	waiting := 0
	for _, q := range asked {
		var o capture.Options
		if json.Unmarshal(q.Payload, &o) != nil || !o.Groupable() {
			q.Release()
			continue
		}
		o.Turn = turns.Current(j, o.Session)
		opts, from = append(opts, o), append(from, q)
		waiting++
	}
	recs, err := w.Capture.CaptureGroup(ctx, j, opts)
	if err != nil && waiting > 0 {
		h.logf("the %d waiting tool calls take their own checkpoints: %v", waiting, fault.Explain(err))
	}
	for i, q := range from {
		done := err == nil && i < len(recs) && recs[i] != nil
		switch {
		case q == nil:
			took = done
		case done:
			q.Answer(recs[i].ID)
		default:
			q.Release()
		}
	}
	return took
}
