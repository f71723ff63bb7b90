package picker

import "strings"

// Key is a key press the picker acts on.
type Key int

// The keys the picker knows; every other key is ignored.
const (
	KeyNone Key = iota
	KeyUp
	KeyDown
	KeyPageUp
	KeyPageDown
	KeyHome
	KeyEnd
	KeyEnter
	KeyQuit // q, Esc, or Ctrl-C (in raw mode it is a byte, not a signal)
)

// escapes are the sequences terminals send for the keys that have one,
// in both the normal and the application cursor mode.
var escapes = map[string]Key{
	"[A": KeyUp, "OA": KeyUp, "[B": KeyDown, "OB": KeyDown,
	"[5~": KeyPageUp, "[6~": KeyPageDown,
	"[H": KeyHome, "OH": KeyHome, "[1~": KeyHome, "[7~": KeyHome,
	"[F": KeyEnd, "OF": KeyEnd, "[4~": KeyEnd, "[8~": KeyEnd,
}

// Keys parses what one read of the terminal returned. A terminal writes a
// key's escape sequence at once, so an Esc alone in a read is the Esc key,
// and an Esc followed by a sequence that is not known (Alt and a letter,
// a function key) is no key at all.
func Keys(b []byte) []Key {
	var out []Key
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case 0x1b:
			if i+1 == len(b) {
				out = append(out, KeyQuit)
				continue
			}
			n := sequenceLength(b[i+1:])
			if k, ok := escapes[string(b[i+1:i+1+n])]; ok {
				out = append(out, k)
			}
			i += n
		case 'k':
			out = append(out, KeyUp)
		case 'j':
			out = append(out, KeyDown)
		case 'g':
			out = append(out, KeyHome)
		case 'G':
			out = append(out, KeyEnd)
		case '\r', '\n':
			out = append(out, KeyEnter)
		case 'q', 'Q', 0x03:
			out = append(out, KeyQuit)
		}
	}
	return out
}

// sequenceLength is the length of the escape sequence b starts with, after
// its Esc: "[" or "O", parameters, then one final byte; or one byte (Alt
// and a key).
func sequenceLength(b []byte) int {
	if b[0] != '[' && b[0] != 'O' {
		return 1
	}
	for i := 1; i < len(b); i++ {
		if b[i] >= 0x40 && b[i] <= 0x7e {
			return i + 1
		}
		if !strings.ContainsRune("0123456789;?", rune(b[i])) {
			return i
		}
	}
	return len(b)
}

// Update applies a key to m: the highlight moves within the list (a page
// is rows entries), or the picker ends with the highlighted entry
// (chosen) or none (quit).
func (m *Model) Update(k Key, rows int) (chosen string, quit bool) {
	switch k {
	case KeyUp:
		m.Move(-1)
	case KeyDown:
		m.Move(1)
	case KeyPageUp:
		m.Move(-rows)
	case KeyPageDown:
		m.Move(rows)
	case KeyHome:
		m.Move(-len(m.Entries))
	case KeyEnd:
		m.Move(len(m.Entries))
	case KeyEnter:
		return m.Selected(), false
	case KeyQuit:
		return "", true
	}
	return "", false
}
