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

// CutShort maps the safety checkpoint of each rewind that started and
// never ended (killed, a power loss: another rewind started, or the
// journal ends, before its rewind_ended) to its target's id: the
// checkpoint whose files it was writing when it stopped.
func (j *Journal) CutShort() map[string]string {
	out := map[string]string{}
	open := -1 // the line of the rewind started last, until its end
	cut := func() {
		// Only a start found cut short is decoded: a classification
		// asks at every rewind, of a journal of every rewind.
		if open >= 0 {
			if rw := j.Event(open).Rewind; rw != nil {
				out[rw.Safety] = rw.Target
			}
		}
	}
	j.whole()
	for i, l := range j.lines {
		switch l.typ {
		case EventRewindStarted:
			cut()
			open = i
		case EventRewindEnded:
			open = -1
		}
	}
	cut()
	return out
}
