package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// printer writes command output: JSON documents, or text for people, in
// color when the terminal and the user allow it.
type printer struct {
	sys   *IO
	json  bool
	quiet bool
	color bool
}

func newPrinter(sys *IO, g *Globals) *printer {
	p := &printer{sys: sys, json: g.JSON, quiet: g.Quiet}
	switch g.Color {
	case "always":
		p.color = true
	case "auto":
		p.color = sys.Getenv("NO_COLOR") == "" && isTerminal(sys.Stdout) && sys.Getenv("TERM") != "dumb"
	}
	return p
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// JSON prints v as the command's one JSON document.
func (p *printer) JSON(v any) error { return writeJSON(p.sys.Stdout, v) }

// writeJSON writes v as one JSON document, as every --json output is
// written: indented, and with & < > as they are (the encoder's default
// escapes them for embedding in HTML, which no reader of this output does,
// and a path would no longer read as the path).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeError writes the --json error document (DESIGN section 3,
// fault.Document): the one writer of it on the command line, so that an
// error reads as the rest of the output does, whether a command failed, the
// command line did not parse or the program hit a bug of its own.
func writeError(w io.Writer, fe *fault.Error) error {
	return writeJSON(w, fe.Document())
}

// Printf prints text for people unless --quiet.
func (p *printer) Printf(format string, args ...any) {
	if !p.quiet {
		fmt.Fprintf(p.sys.Stdout, format, args...)
	}
}

// Paint wraps s in an ANSI color when color is on.
func (p *printer) Paint(color, s string) string {
	if !p.color {
		return s
	}
	codes := map[string]string{"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1", "dim": "2"}
	return "\x1b[" + codes[color] + "m" + s + "\x1b[0m"
}

// age prints how long ago t was, briefly.
func age(now, t time.Time) string { return fault.Ago(now.Sub(t)) }

// changes prints "~2 +1 -1": paths modified, added and deleted.
func changes(c store.Changes) string {
	return fmt.Sprintf("~%d +%d -%d", c.Modified, c.Added, c.Deleted)
}

// legend ends a table with a CHANGES column (list, log) on a terminal
// with what its signs mean, which nobody knows without the man page.
// Through a pipe the table stays a header and rows, which scripts read
// (`awk 'NR>1'`), as they read --json.
func (p *printer) legend() {
	if isTerminal(p.sys.Stdout) {
		p.Printf("CHANGES: ~ modified, + added, - deleted\n")
	}
}
