package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// drain holds back the end of the client's input until every request read
// has its answer written. The SDK ends the session at the end of the
// input and drops the answers still being worked on, so a client that
// writes its requests and closes its end (`printf ... | git checkpoint
// mcp`, a script) would get none of them.
type drain struct {
	in  io.Reader
	out io.Writer

	mu      sync.Mutex
	wmu     sync.Mutex // held while writing out
	done    *sync.Cond
	pending int
	// inLine and outLine hold the part of a message read or written
	// whose newline has not come yet.
	inLine, outLine []byte
}

func newDrain(in io.Reader, out io.Writer) *drain {
	d := &drain{in: in, out: out}
	d.done = sync.NewCond(&d.mu)
	return d
}

// message is what drain reads of a JSON-RPC message: a request has a
// method and an id, its answer the id alone.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// lines counts the requests (sign 1) or answers (sign -1) among the whole
// lines of buf after what is held in part.
func (d *drain) lines(part *[]byte, buf []byte, sign int) {
	*part = append(*part, buf...)
	for {
		i := bytes.IndexByte(*part, '\n')
		if i < 0 {
			return
		}
		var m message
		if json.Unmarshal((*part)[:i], &m) == nil && len(m.ID) > 0 && (m.Method != "") == (sign > 0) {
			d.pending += sign
		}
		*part = (*part)[i+1:]
	}
}

func (d *drain) Read(p []byte) (int, error) {
	n, err := d.in.Read(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lines(&d.inLine, p[:n], 1)
	if err == io.EOF {
		for d.pending > 0 {
			d.done.Wait()
		}
	}
	return n, err
}

func (d *drain) Write(p []byte) (int, error) {
	// One writer at a time: the SDK's answers and the parse errors of
	// lines are whole messages that must not interleave.
	d.wmu.Lock()
	n, err := d.out.Write(p)
	d.wmu.Unlock()
	d.mu.Lock()
	d.lines(&d.outLine, p[:n], -1)
	d.mu.Unlock()
	d.done.Broadcast()
	return n, err
}

func (d *drain) Close() error { return nil }

// reply writes an answer to a line the SDK never saw (lines): whole,
// between the SDK's own messages, and not counted, since its request
// was not either.
func (d *drain) reply(p []byte) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	d.out.Write(p)
}
