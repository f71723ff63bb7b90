package restore

import (
	"maps"
	"slices"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
)

// sync makes the renames and deletions the writes made survive a power
// loss, and with them what is in the directories also names: until then,
// a file renamed into place can come back as the old one after the rewind
// was journaled as ended. It syncs each directory whose entries changed,
// all at once, which waits for this rewind's writes alone; past
// maxDirSyncs directories, or where a directory's sync is not cheap
// (durable.SyncEach), one syncfs of each filesystem the writes reached
// does it at the cost of one flush, but waits for every program's writes
// to that disk. A write changes its directory and, where it makes or
// removes a directory, the one above: every one of them was opened on the
// write's way, whatever has been swapped in at its path since. A nil tree
// reached none.
func (t *tree) sync() error {
	if t == nil {
		return nil
	}
	if t.changed != nil && durable.SyncEach {
		return durable.SyncFDs(slices.Collect(maps.Values(t.changed)))
	}
	for _, fd := range t.devs {
		if err := durable.SyncFSOf(fd); err != nil {
			return err
		}
	}
	return nil
}
