package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"time"
)

// batchProc is a running `git cat-file --batch`, asked and answered a
// batch of ids at a time: the one door of the readers that stream their
// questions (ReadTrees, Trees, CheckoutBlobs), traced like every command.
type batchProc struct {
	r     *Runner
	args  []string
	start time.Time
	wait  func() error
	in    io.WriteCloser
	out   *bufio.Reader
	rest  io.Reader
}

// startBatch starts `git cat-file --batch`. older says it will be asked
// only for objects older than the work aside (Cmd.Older).
func (r *Runner) startBatch(ctx context.Context, older bool) (*batchProc, error) {
	return r.startStream(ctx, []string{"cat-file", "--batch"}, older)
}

// startStream starts a git process that is asked on its standard input
// and answers on its standard output as it goes (cat-file --batch,
// update-ref --stdin).
func (r *Runner) startStream(ctx context.Context, args []string, older bool) (*batchProc, error) {
	if !older {
		if err := r.Aside.Settle(); err != nil {
			return nil, err
		}
	}
	// cat-file reads; update-ref writes when asked, each update begun
	// and named by UpdateRef.
	c := Cmd{Args: args}
	if args[0] != "cat-file" && args[0] != "update-ref" {
		return nil, fmt.Errorf("git %s: not a stream this runner knows the writes of", args[0])
	}
	cmd := r.command(ctx, c)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var errs bytes.Buffer
	cmd.Stderr = &errs
	r.traceStart(c.Args)
	p := &batchProc{r: r, args: c.Args, start: time.Now(), in: in, out: bufio.NewReader(out), rest: out}
	if err := cmd.Start(); err != nil {
		return nil, r.failed(ctx, c, "", err)
	}
	p.wait = func() error {
		if err := cmd.Wait(); err != nil {
			return r.failed(ctx, c, errs.String(), err)
		}
		return nil
	}
	return p, nil
}

// close ends the process and returns how it ended.
func (p *batchProc) close() error {
	p.in.Close()
	io.Copy(io.Discard, p.rest)
	err := p.wait()
	p.r.traceEnd(p.args, p.start)
	return err
}
