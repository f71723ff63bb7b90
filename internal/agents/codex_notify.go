package agents

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Codex's notify setting holds one program, run after each turn with the
// turn's JSON as its last argument; it needs no hook trust. When the user
// already has a notify program, git-checkpoint does not replace it: it
// wraps it. The notify line becomes a small sh script that runs
// git-checkpoint's hook with the JSON, then execs the old program with
// exactly the arguments Codex would have given it. The old line is kept,
// commented out with "#| ", inside a marked block, and uninstall puts it
// back byte for byte.

// notifyScript is the script the notify line runs with sh -c: $0 is the
// marker name, "$@" the old program's argv (if any) followed by Codex's
// JSON. Without git-checkpoint on PATH it only runs the old program.
const notifyScript = `j=; for a; do j=$a; done; ` +
	`command -v git-checkpoint >/dev/null 2>&1 && git-checkpoint hook codex notify "$j"; ` +
	`[ $# -gt 1 ] && exec "$@"; exit 0`

// The block git-checkpoint owns in config.toml. The version in the first
// line lets a later install recognise and upgrade it.
const (
	notifyBegin  = "# >>> git-checkpoint v1 >>>"
	notifyAbout  = "# Checkpoints each Codex turn. 'git checkpoint uninstall codex' removes this block and puts back any \"#| \" line."
	notifyEnd    = "# <<< git-checkpoint <<<"
	notifyKept   = "#| "
	notifyMarker = "git-checkpoint-notify"
)

// notifyLine is the notify setting running the script, then chained.
func notifyLine(chained []string) string {
	argv := append([]string{"sh", "-c", notifyScript, notifyMarker}, chained...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = quoteTOML(a)
	}
	return "notify = [" + strings.Join(quoted, ", ") + "]\n"
}

// notifyBlock is the whole block, keeping the user's old lines.
func notifyBlock(kept string, chained []string) string {
	var b strings.Builder
	b.WriteString(notifyBegin + "\n" + notifyAbout + "\n")
	for _, l := range strings.SplitAfter(kept, "\n") {
		if l != "" {
			b.WriteString(notifyKept + l)
		}
	}
	if kept != "" && !strings.HasSuffix(kept, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(notifyLine(chained))
	b.WriteString(notifyEnd + "\n")
	return b.String()
}

// findBlock locates git-checkpoint's block: its byte range and the lines
// it keeps (without their "#| ").
func findBlock(src string) (start, end int, kept string, found bool) {
	i := strings.Index(src, "# >>> git-checkpoint ")
	if i < 0 || (i > 0 && src[i-1] != '\n') {
		return 0, 0, "", false
	}
	j := strings.Index(src[i:], notifyEnd)
	if j < 0 {
		return 0, 0, "", false
	}
	end = lineEnd(src, i+j)
	var b strings.Builder
	for _, l := range strings.SplitAfter(src[i:end], "\n") {
		if k, ok := strings.CutPrefix(l, notifyKept); ok {
			b.WriteString(k)
		}
	}
	return i, end, b.String(), true
}

// installNotify adds or upgrades the block. It returns the new text and,
// when an existing program was wrapped, its command line.
func installNotify(src string) (string, []string, error) {
	if start, end, kept, ok := findBlock(src); ok {
		chained, err := keptProgram(kept)
		if err != nil {
			return "", nil, err
		}
		return src[:start] + notifyBlock(kept, chained) + src[end:], chained, nil
	}
	start, end, value, found, err := rootKey(src, "notify")
	if err != nil {
		return "", nil, err
	}
	if !found {
		// The root table's keys must come before any [table]: the start
		// of the file is always such a place.
		return notifyBlock("", nil) + src, nil, nil
	}
	chained, err := stringList(value)
	if err != nil {
		return "", nil, fmt.Errorf("the notify setting is not a list of strings (%v)", err)
	}
	return src[:start] + notifyBlock(src[start:end], chained) + src[end:], chained, nil
}

// keptProgram reads the program from kept notify lines; none is fine.
func keptProgram(kept string) ([]string, error) {
	if kept == "" {
		return nil, nil
	}
	_, _, value, found, err := rootKey(kept, "notify")
	if err != nil || !found {
		return nil, fmt.Errorf("the kept notify line does not parse")
	}
	return stringList(value)
}

// uninstallNotify takes the block out, putting back the lines it kept.
func uninstallNotify(src string) (string, bool) {
	start, end, kept, ok := findBlock(src)
	if !ok {
		return src, false
	}
	return src[:start] + kept + src[end:], true
}

// notifyConfig is a config: the notify block in Codex's user
// configuration, whatever the scope of its hooks (notify is a setting of
// the user's only).
type notifyConfig struct{}

func (notifyConfig) install(_ Agent, _ string, env Env) ([]File, []string, error) {
	f, notes, err := installCodexNotify(env)
	if err != nil {
		return nil, nil, err
	}
	return []File{f}, notes, nil
}

func (notifyConfig) uninstall(_ Agent, _ string, env Env) ([]File, error) {
	f, err := uninstallCodexNotify(env)
	if err != nil {
		return nil, err
	}
	return []File{f}, nil
}

func (notifyConfig) snippet(Agent) Snippet {
	return Snippet{"config.toml", "the top of ~/.codex/config.toml ($CODEX_HOME/config.toml)", notifyBlock("", nil)}
}

// codexConfig is Codex's user configuration file.
func codexConfig(env Env) string { return filepath.Join(codexHome(env), "config.toml") }

// installCodexNotify edits config.toml; notes say what became of an
// existing notify program.
func installCodexNotify(env Env) (File, []string, error) {
	path := codexConfig(env)
	src, err := readFile(path)
	if err != nil {
		return File{}, nil, err
	}
	out, chained, err := installNotify(string(src))
	if err != nil {
		return File{}, nil, fault.New(fault.InvalidSettings, "cannot add notify to %s: %v", path, err).
			WithHint("fix the file, or set notify by hand ('git checkpoint install codex --print' shows the block)")
	}
	var notes []string
	if len(chained) > 0 {
		notes = append(notes, fmt.Sprintf("Codex's notify program (%s) still runs after each turn, after git-checkpoint's",
			strings.Join(chained, " ")))
	}
	f, err := writeIfChanged(path, src, []byte(out))
	return f, notes, err
}

// uninstallCodexNotify removes the block from config.toml.
func uninstallCodexNotify(env Env) (File, error) {
	path := codexConfig(env)
	src, err := readFile(path)
	if err != nil || src == nil {
		return File{Path: path, Action: "absent"}, err
	}
	out, ok := uninstallNotify(string(src))
	if !ok {
		return File{Path: path, Action: "unchanged"}, nil
	}
	if out == "" {
		// install created the file: it goes again.
		return removeFile(path)
	}
	return writeIfChanged(path, src, []byte(out))
}
