package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"

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
func (p *printer) JSON(v any) error {
	enc := json.NewEncoder(p.sys.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
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
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// changes prints "~2 +1 -1".
func changes(c store.Changes) string {
	return fmt.Sprintf("~%d +%d -%d", c.Modified, c.Added, c.Deleted)
}
