package cli

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// table prints rows with columns padded to their widest cell.
func (p *printer) table(rows [][]string) {
	for _, line := range p.tableLines(rows) {
		p.Printf("%s\n", line)
	}
}

// tableLines lays rows out as table prints them, one line each, so that a
// caller can print more under a row. On a terminal a line is cut to its
// width, at the last cell (a label or a prompt), which would otherwise
// wrap and break the columns; a pipe or a file gets every cell whole.
func (p *printer) tableLines(rows [][]string) []string {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], len(cell))
		}
	}
	cols := p.width()
	var out []string
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			if i == len(row)-1 {
				if cols > 0 {
					cell = cut(cell, cols-utf8.RuneCountInString(b.String()))
				}
				b.WriteString(cell)
				break
			}
			b.WriteString(cell + strings.Repeat(" ", width[i]-len(cell)+2))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// width is the terminal's width in columns when stdout is a terminal, or 0.
func (p *printer) width() int {
	if !isTerminal(p.sys.Stdout) {
		return 0
	}
	fd := p.sys.Stdout.(interface{ Fd() uintptr }).Fd()
	w, _, err := term.GetSize(int(fd))
	if err != nil {
		return 0
	}
	return w
}

// cut shortens s to n characters, the last of them an ellipsis when
// anything was cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
