// Package manpage turns the man pages' sources (man/*.md, a small subset of
// Markdown) into roff, so that the generated pages can be committed and
// `make install` needs nothing but Go. The test in this package fails when
// a committed page is out of date and rewrites it with -update.
//
// The subset: "# name(1) -- summary" first; "## SECTION" and "### Sub";
// paragraphs; "* term:" items whose description follows indented by two
// spaces; fenced code blocks; `bold` and *italic* inline. Lines of the
// SYNOPSIS section stay separate lines.
package manpage

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

var (
	titleRe  = regexp.MustCompile(`^# ([a-z-]+)\((\d)\) -- (.+)$`)
	boldRe   = regexp.MustCompile("`([^`]+)`")
	italicRe = regexp.MustCompile(`\*([^*\s][^*]*)\*`)
)

// Render converts a man page source to roff. version goes in the footer.
func Render(src []byte, version string) ([]byte, error) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	first := true
	inCode := false
	section := ""
	for sc.Scan() {
		line := sc.Text()
		if first {
			m := titleRe.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("first line must be '# name(N) -- summary', got %q", line)
			}
			fmt.Fprintf(&out, ".TH %s %s \"\" \"%s\" \"Git Manual\"\n", strings.ToUpper(m[1]), m[2], version)
			fmt.Fprintf(&out, ".SH NAME\n%s \\- %s\n", escape(m[1]), escape(m[3]))
			first = false
			continue
		}
		switch {
		case strings.HasPrefix(line, "```"):
			if inCode {
				out.WriteString(".fi\n.RE\n")
			} else {
				out.WriteString(".PP\n.RS 4\n.nf\n")
			}
			inCode = !inCode
		case inCode:
			out.WriteString(escape(line) + "\n")
		case strings.HasPrefix(line, "### "):
			fmt.Fprintf(&out, ".SS %s\n", escape(line[4:]))
		case strings.HasPrefix(line, "## "):
			section = line[3:]
			fmt.Fprintf(&out, ".SH %s\n", escape(section))
		case strings.HasPrefix(line, "* ") && strings.HasSuffix(line, ":"):
			fmt.Fprintf(&out, ".TP\n%s\n", inline(strings.TrimSuffix(line[2:], ":")))
		case strings.TrimSpace(line) == "":
			out.WriteString(".PP\n")
		case section == "SYNOPSIS":
			// Each synopsis line is a form of the command: keep them apart.
			out.WriteString(inline(strings.TrimSpace(line)) + "\n.br\n")
		default:
			out.WriteString(inline(strings.TrimSpace(line)) + "\n")
		}
	}
	if inCode {
		return nil, fmt.Errorf("unclosed code block")
	}
	return tidy(out.Bytes()), sc.Err()
}

// inline escapes text and turns `code` into bold and *word* into italic.
func inline(s string) string {
	s = escape(s)
	s = boldRe.ReplaceAllString(s, `\fB$1\fR`)
	return italicRe.ReplaceAllString(s, `\fI$1\fR`)
}

// escape makes text safe for roff: backslashes, hyphens that must stay
// hyphens (so options can be searched and copied), and a leading dot or
// quote that roff would take as a request.
func escape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// tidy drops paragraph breaks that roff would print as extra blank lines:
// repeated ones and ones right after a heading or item.
func tidy(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	var out []string
	for _, l := range lines {
		if l == ".PP" && len(out) > 0 {
			prev := out[len(out)-1]
			if prev == ".PP" || strings.HasPrefix(prev, ".SH") || strings.HasPrefix(prev, ".SS") ||
				strings.HasPrefix(prev, ".TH") || prev == ".TP" {
				continue
			}
		}
		out = append(out, l)
	}
	// A paragraph break before a heading or item is implied by it.
	var final []string
	for i, l := range out {
		if l == ".PP" && i+1 < len(out) && (strings.HasPrefix(out[i+1], ".SH") || strings.HasPrefix(out[i+1], ".SS") || out[i+1] == ".TP") {
			continue
		}
		final = append(final, l)
	}
	return []byte(strings.Join(final, "\n"))
}
