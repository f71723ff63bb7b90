package store

// RewindsBy maps the checkpoints of each rewind that someone other than a
// person at the command line applied (Rewind.By: ByModel, through the MCP
// server), its safety checkpoint and the one it ended with, to who
// applied it: what log and show mark, from the rewind_started events
// that record it.
func (j *Journal) RewindsBy() map[string]string {
	out := map[string]string{}
	by := "" // who applied the rewind started last, until its end
	j.whole()
	for i, l := range j.lines {
		switch {
		case l.typ == EventRewindStarted:
			by = ""
			if rw := j.Event(i).Rewind; rw != nil && rw.By != "" {
				out[rw.Safety], by = rw.By, rw.By
			}
		case l.typ == EventRewindEnded:
			by = ""
		case l.typ == EventCheckpoint && !l.reused && by != "":
			if r := j.Event(i).Checkpoint; r != nil && r.Reason == ReasonRewind {
				out[r.ID], by = by, ""
			}
		}
	}
	return out
}
