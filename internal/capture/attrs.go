package capture

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxAttributesBytes bounds what convertsAny reads of one attributes file;
// a bigger one is taken to convert.
const maxAttributesBytes = 256 << 10

// convertsAny reports whether one of the attributes files in dirs (slash-
// separated, "" the top), as the working tree has them, may make git store
// a file otherwise than as its bytes (attributesConvert).
func (c *Capturer) convertsAny(dirs []string) bool {
	for _, d := range dirs {
		if attributesConvert(filepath.Join(c.Repo.Top, filepath.FromSlash(path.Join(d, ".gitattributes")))) {
			return true
		}
	}
	return false
}

// attributesConvert reports whether the attributes file at name may make
// git store a file otherwise than as its bytes, which is what makes a
// capture have git hash files and keep a raw overlay (raw.go). Many trees
// hold attributes files that cannot: `* -text` (Go's own tree), `binary`,
// linguist-*, export-ignore, diff and merge drivers. Those convert
// nothing, and a tree whose only attributes files are such is captured
// and rewound as a tree without any (docs/speed.md, "Attributes that
// convert nothing").
//
// What converts on the way in, from gitattributes(5): text and crlf (end
// of lines), eol (which implies text), ident, filter, and
// working-tree-encoding, each when set or given a value; unset ("-") or
// unspecified ("!"), none does. A macro can set them under another name,
// so a file that defines one ("[attr]") is taken to convert; macros are
// defined only in the top attributes file and in those outside the tree
// (whose presence alone makes mayConvert say yes), and the one built in,
// binary, unsets text. A file that cannot be read, or that is bigger than
// maxAttributesBytes, is taken to convert. Where git then converts nothing
// still, the capture only pays for asking it.
func attributesConvert(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAttributesBytes+1))
	if err != nil || len(data) > maxAttributesBytes {
		return true
	}
	for line := range strings.Lines(string(data)) {
		if lineConverts(line) {
			return true
		}
	}
	return false
}

// convertingAttributes are the attributes that change what git stores.
var convertingAttributes = map[string]bool{
	"text": true, "crlf": true, "eol": true, "ident": true, "filter": true, "working-tree-encoding": true,
}

// lineConverts reports whether one line of an attributes file may set an
// attribute that converts (attributesConvert).
func lineConverts(line string) bool {
	line = strings.TrimLeft(line, " \t\r\n")
	if line == "" || line[0] == '#' {
		return false
	}
	if strings.HasPrefix(line, "[attr]") {
		return true
	}
	rest, ok := afterPattern(line)
	if !ok {
		return true
	}
	for _, tok := range strings.Fields(rest) {
		if tok[0] == '-' || tok[0] == '!' {
			continue
		}
		name, _, _ := strings.Cut(tok, "=")
		if convertingAttributes[name] {
			return true
		}
	}
	return false
}

// afterPattern is what follows a line's pattern: the attributes. A
// pattern that begins with a double quote is quoted in C style, where a
// backslash escapes the next character; ok is false when its quote does
// not close.
func afterPattern(line string) (rest string, ok bool) {
	if line[0] != '"' {
		if i := strings.IndexAny(line, " \t\r\n"); i >= 0 {
			return line[i:], true
		}
		return "", true
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			return line[i+1:], true
		}
	}
	return "", false
}
