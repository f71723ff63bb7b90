package agents

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// Kimi Code's hooks are [[hooks]] tables in its config.toml. install
// appends them at the end of the file, where a table may always start, in
// a block between marker comments; uninstall cuts the block out, and the
// file is byte for byte what it was. A file that did not end in a newline
// gets one before the block, which the block's first line records, so
// that uninstall takes it away again.

const (
	kimiBegin   = "# >>> git-checkpoint v1 >>>"
	kimiBeginNL = "# >>> git-checkpoint v1 (newline added) >>>"
	kimiAbout   = "# Checkpoints each Kimi Code turn. 'git checkpoint uninstall kimi' removes this block."
	kimiEnd     = "# <<< git-checkpoint <<<"
)

// kimiConfig is a config: the hooks block in Kimi Code's config.toml.
type kimiConfig struct{}

// kimiConfigPath is the file Kimi Code reads hooks from, whatever the
// scope: it reads no other.
func kimiConfigPath(env Env) string { return filepath.Join(kimiHome(env), "config.toml") }

// kimiBlock is the block of hooks for a's hooked events; begin is its
// first line.
func kimiBlock(a Agent, begin string) string {
	var b strings.Builder
	b.WriteString(begin + "\n" + kimiAbout + "\n")
	for _, e := range a.hooked() {
		b.WriteString("[[hooks]]\nevent = " + quoteTOML(e) + "\ncommand = " + quoteTOML(HookCommand(a.Name)) + "\n")
		b.WriteString("timeout = " + strconv.Itoa(HookTimeout) + "\n")
	}
	b.WriteString(kimiEnd + "\n")
	return b.String()
}

// findKimiBlock locates the block: its byte range, with the newline install
// added before it when it did and the block still ends the file. With
// lines after it, that newline now ends the line before the block, and
// taking it would glue the two.
func findKimiBlock(src string) (start, end int, found bool) {
	i := strings.Index(src, "# >>> git-checkpoint ")
	if i < 0 || (i > 0 && src[i-1] != '\n') {
		return 0, 0, false
	}
	j := strings.Index(src[i:], kimiEnd)
	if j < 0 {
		return 0, 0, false
	}
	start, end = i, lineEnd(src, i+j)
	if strings.HasPrefix(src[i:], kimiBeginNL) && end == len(src) {
		start--
	}
	return start, end, true
}

// installKimi adds or rewrites the block, keeping every other byte.
func installKimi(a Agent, src string) (string, error) {
	if start, end, ok := findKimiBlock(src); ok {
		src = src[:start] + src[end:]
		return installKimi(a, src)
	}
	_, _, _, found, err := rootKey(src, "hooks")
	if err != nil {
		return "", err
	}
	if found {
		// hooks = [...] and [[hooks]] cannot be in one document.
		return "", errInlineHooks
	}
	if src != "" && !strings.HasSuffix(src, "\n") {
		return src + "\n" + kimiBlock(a, kimiBeginNL), nil
	}
	return src + kimiBlock(a, kimiBegin), nil
}

var errInlineHooks = errors.New("hooks is set as an inline list, which cannot take [[hooks]] tables")

func (kimiConfig) install(a Agent, _ string, env Env) ([]File, []string, error) {
	path := kimiConfigPath(env)
	src, err := readFile(path)
	if err != nil {
		return nil, nil, err
	}
	out, err := installKimi(a, string(src))
	if err != nil {
		return nil, nil, fault.New(fault.InvalidSettings, "cannot add hooks to %s: %v", path, err).
			WithHint("write the hooks as [[hooks]] tables, or add them by hand ('git checkpoint install kimi --print' shows them)")
	}
	f, err := writeIfChanged(path, src, []byte(out))
	if err != nil {
		return nil, nil, err
	}
	return []File{f}, nil, nil
}

func (kimiConfig) uninstall(_ Agent, _ string, env Env) ([]File, error) {
	path := kimiConfigPath(env)
	src, err := readFile(path)
	if err != nil || src == nil {
		return []File{{Path: path, Action: "absent"}}, err
	}
	start, end, ok := findKimiBlock(string(src))
	if !ok {
		return []File{{Path: path, Action: "unchanged"}}, nil
	}
	out := string(src[:start]) + string(src[end:])
	if out == "" {
		// install created the file: it goes again.
		f, err := removeFile(path)
		return []File{f}, err
	}
	f, err := writeIfChanged(path, src, []byte(out))
	return []File{f}, err
}

func (kimiConfig) snippet(a Agent) Snippet {
	return Snippet{"config.toml", "the end of ~/.kimi-code/config.toml ($KIMI_CODE_HOME/config.toml)", kimiBlock(a, kimiBegin)}
}
