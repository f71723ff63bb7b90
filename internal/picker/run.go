package picker

import (
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
)

// Terminal escapes the picker writes: it draws on the alternate screen,
// so that leaving it gives back the screen as it was (the plan and the
// question that follow are printed there, as without -i), with the cursor
// hidden while it draws.
const (
	enterScreen = "\x1b[?1049h\x1b[?25l"
	leaveScreen = "\x1b[?25h\x1b[?1049l"
	home        = "\x1b[H"
	clearLine   = "\x1b[K"
	clearBelow  = "\x1b[J"
	reverse     = "\x1b[7m"
	plain       = "\x1b[m"
)

// Run shows the picker for m's entries, reading keys from in and drawing
// on out (both terminals), until an entry is chosen (its id is returned)
// or the person leaves ("" is). plan gives each entry's preview, computed
// in the background when the entry is first highlighted, one at a time.
//
// The terminal is in raw mode only while Run runs and is given back as it
// was however Run returns: after a key, a signal (SIGINT, SIGTERM, SIGHUP:
// Ctrl-C itself arrives as a key in raw mode) or the end of ctx.
func Run(ctx context.Context, in, out *os.File, m Model, plan Planner) (string, error) {
	if len(m.Entries) == 0 {
		return "", nil
	}
	if m.Plans == nil {
		m.Plans = map[string]Preview{}
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return "", err
	}
	defer term.Restore(int(in.Fd()), state)
	io.WriteString(out, enterScreen)
	defer io.WriteString(out, leaveScreen)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	resized := make(chan os.Signal, 1)
	notifyResize(resized)
	defer signal.Stop(resized)

	keys := make(chan []byte)
	readDone := make(chan struct{})
	go func() { defer close(readDone); readKeys(ctx, in, keys) }()
	// The reader must be gone before Run returns: a read still waiting
	// would take the answer to the question that follows.
	defer func() { cancel(); <-readDone }()
	type result struct {
		id string
		p  Preview
	}
	results := make(chan result, 1)
	computing := ""
	for {
		if _, ok := m.Plans[m.Selected()]; !ok && computing == "" {
			computing = m.Selected()
			go func(id string) { results <- result{id, plan(ctx, id)} }(computing)
		}
		width, height := size(out)
		rows := ListRows(len(m.Entries), height)
		m.Follow(rows)
		draw(out, View(m, width, height))
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-signals:
			return "", nil
		case <-resized:
		case r := <-results:
			m.Plans[r.id], computing = r.p, ""
		case b, ok := <-keys:
			if !ok {
				return "", nil // the terminal is gone
			}
			for _, k := range Keys(b) {
				if chosen, quit := m.Update(k, rows); chosen != "" || quit {
					return chosen, nil
				}
			}
		}
	}
}

// readKeys sends what each read of in returns, until a read fails or ctx
// ends. It reads only when in has something to read, looking again every
// tenth of a second, so that it never waits in a read once ctx ends.
func readKeys(ctx context.Context, in *os.File, keys chan<- []byte) {
	defer close(keys)
	buf := make([]byte, 256)
	for ctx.Err() == nil {
		ready, err := readable(in, 100*time.Millisecond)
		if err != nil {
			return
		}
		if !ready {
			continue
		}
		n, err := in.Read(buf)
		if n > 0 {
			select {
			case keys <- append([]byte(nil), buf[:n]...):
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// size is out's size, or 80x24 when it cannot be read.
func size(out *os.File) (width, height int) {
	w, h, err := term.GetSize(int(out.Fd()))
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}

// draw writes a screen in one write, from the top left, each row cleared
// to its end and the rest of the screen cleared below (raw mode: "\r\n").
func draw(out io.Writer, s Screen) {
	var b strings.Builder
	b.WriteString(home)
	for i, l := range s.Lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		if i == s.Highlight {
			b.WriteString(reverse + l + clearLine + plain)
		} else {
			b.WriteString(l + clearLine)
		}
	}
	b.WriteString(clearBelow)
	io.WriteString(out, b.String())
}
