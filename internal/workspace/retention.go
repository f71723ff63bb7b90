package workspace

import "github.com/git-checkpoint/git-checkpoint/internal/store"

// Retention is the configured rule set of DESIGN 5.4, which git checkpoint
// prune applies and a hook at a turn's end applies when it is due.
func (w *Workspace) Retention() store.Retention {
	return store.Retention{Keep: w.Config.Keep, KeepFor: w.Config.KeepFor, KeepSafety: w.Config.KeepSafety}
}
