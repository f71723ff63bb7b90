package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/jsontext"
)

// Scopes of an installation, as Claude Code names its settings files.
const (
	ScopeLocal   = "local"   // this working tree, not shared: .claude/settings.local.json
	ScopeProject = "project" // this working tree, shared with the repository: .claude/settings.json
	ScopeUser    = "user"    // every project of this user: ~/.claude/settings.json
)

// HookTimeout is the time limit the agents get for one hook call, in
// seconds. It is above checkpoint.hookTimeout (20s by default) so that the
// hook gives up on its own, logging why, before the agent kills it.
const HookTimeout = 30

// Env is where the agents' configuration lives.
type Env struct {
	Top      string // the working tree's top; "" outside one
	Home     string
	Getenv   func(string) string
	HooksDir string // the hooks directory git uses here (core.hooksPath respected); "" outside a repository
	// HooksShared says HooksDir lies outside the repository's git
	// directory, where core.hooksPath can share it with other
	// repositories: a hook installed there runs in all of them.
	HooksShared bool
}

// File is one file an install or uninstall looked at.
type File struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created, updated, unchanged, removed, absent
}

// Result is what install or uninstall did.
type Result struct {
	Files []File   `json:"files"`
	Notes []string `json:"notes"`
}

// HookCommand is the shell command an agent's hook entry runs. It does
// nothing when git-checkpoint is not installed, and never fails: a missing
// or broken binary must not stop the agent. It calls git-checkpoint
// directly, which saves starting git for every hook.
func HookCommand(agent string) string {
	return "command -v git-checkpoint >/dev/null 2>&1 && git-checkpoint hook " + agent + " || true"
}

// ours reports whether a hook command is one git-checkpoint installed for
// agent, in this or an older form: that is how install upgrades them and
// uninstall finds them.
func ours(command, agent string) bool { return callsHook(command, agent) }

// callsHook reports whether text runs git-checkpoint's hook for agent (any
// agent when agent is ""), in this or the older `git checkpoint` form.
func callsHook(text, agent string) bool {
	return strings.Contains(text, "git-checkpoint hook "+agent) || strings.Contains(text, "git checkpoint hook "+agent)
}

// settings are the hooks of an agent whose settings file is JSON of the
// shape {"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command",
// "command", "timeout"}]}]}} (Claude Code, Codex, Gemini CLI), or with
// flat entries {"hooks": {EVENT: [{"type": "command", "bash",
// "timeoutSec"}]}} (Copilot CLI) or {"hooks": {EVENT: [{"command",
// "timeout"}]}} (Cursor): one for each of its hooked events.
type settings struct {
	agent   string
	events  []string
	timeout int // in the agent's unit
	flat    *flatShape
	// version is the format version the agent requires at the top of the
	// file ("version": 1 in Cursor's hooks.json), added when absent; 0
	// for none.
	version int
}

// flatShape is the shape of an agent's flat hook entries, each a hook
// itself rather than a group of hooks: the keys of its command and of its
// time limit, and whether it says its type ("type": "command").
type flatShape struct {
	command, timeout string
	typed            bool
}

// The flat entries of Copilot CLI and of Cursor.
var (
	copilotEntry = &flatShape{command: "bash", timeout: "timeoutSec", typed: true}
	cursorEntry  = &flatShape{command: "command", timeout: "timeout"}
)

// group is the entry git-checkpoint adds to each event: no matcher (every
// tool; the hook itself passes over read-only ones), one command.
func (s settings) group() []byte {
	if f := s.flat; f != nil {
		var b bytes.Buffer
		b.WriteString("{")
		if f.typed {
			b.WriteString(`"type":"command",`)
		}
		fmt.Fprintf(&b, "%s:%s,%s:%d}", compact(f.command), compact(HookCommand(s.agent)), compact(f.timeout), s.timeout)
		return b.Bytes()
	}
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	return compact(map[string][]hook{"hooks": {{"command", HookCommand(s.agent), s.timeout}}})
}

// snippet is the whole settings file for a fresh setup.
func (s settings) snippet() []byte {
	d, _ := jsontext.Open(nil)
	if s.version != 0 {
		d.Put([]string{"version"}, []byte(strconv.Itoa(s.version)))
	}
	for _, e := range s.events {
		d.Append([]string{"hooks", e}, s.group())
	}
	return d.Src
}

// compact marshals v without escaping &, < and > (the hook command has
// them), which json.Marshal would turn into \u0026 and friends.
func compact(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}

// settingsFile is a config: the JSON settings file of an agent that
// holds its hooks.
type settingsFile struct {
	name  string // of the snippet, and of its copy in hooks/<agent>/
	where string // the files the snippet is for, as a person reads them
	// path is the file for scope; for the tree's scopes, env.Top is set.
	path func(scope string, env Env) string
	// timeout is HookTimeout in the agent's unit.
	timeout int
	// flat is the shape of the entries when they are hooks themselves,
	// not groups of them.
	flat *flatShape
	// version is settings.version.
	version int
}

// hooksAt is the file holding the agent's hooks for scope.
func (f settingsFile) hooksAt(scope string, env Env) string { return f.path(scope, env) }

func (f settingsFile) hooks(a Agent) settings {
	return settings{a.Name, a.hooked(), f.timeout, f.flat, f.version}
}

// file is the settings file for scope, refusing a scope it cannot place
// (placed).
func (f settingsFile) file(scope string, env Env) (string, error) {
	return placed(scope, env, "installs into one", f.path(scope, env))
}

// inTree refuses a scope of the working tree (local, project) outside one;
// does says what that scope does there.
func inTree(scope string, env Env, does string) error {
	if scope != ScopeUser && env.Top == "" {
		return fault.New(fault.UnsupportedNoRepository, "not in a git working tree: --scope %s %s", scope, does).
			WithHint("run it inside the repository, or use --scope user")
	}
	return nil
}

// placed returns path, the file an install or uninstall at scope does
// its work in, or why there is none: a scope of the tree outside one
// (inTree), or the user's scope without HOME (nor the agent's own
// variable), where the path would be relative and name a file in
// whatever directory the command runs in.
func placed(scope string, env Env, does, path string) (string, error) {
	if err := inTree(scope, env, does); err != nil {
		return "", err
	}
	if scope == ScopeUser && !filepath.IsAbs(path) {
		return "", fault.New(fault.InvalidUsage, "HOME is not set: --scope user has no settings to work in").
			WithHint("use --scope local or --scope project, or set HOME")
	}
	return path, nil
}

func (f settingsFile) install(a Agent, scope string, env Env) ([]File, []string, error) {
	path, err := f.file(scope, env)
	if err != nil {
		return nil, nil, err
	}
	file, err := installSettings(env, path, f.hooks(a))
	if err != nil {
		return nil, nil, err
	}
	return []File{file}, nil, nil
}

func (f settingsFile) uninstall(a Agent, scope string, env Env) ([]File, error) {
	path, err := f.file(scope, env)
	if err != nil {
		return nil, err
	}
	file, err := uninstallSettings(env, path, f.hooks(a))
	if err != nil {
		return nil, err
	}
	return []File{file}, nil
}

func (f settingsFile) snippet(a Agent) Snippet {
	return Snippet{f.name, f.where, string(f.hooks(a).snippet())}
}

// installSettings adds the agent's hook entries to its settings file,
// keeping everything else byte for byte. An entry of git-checkpoint's
// that is already there stays as it is, or is rewritten in place when an
// older version wrote it; an event whose hooks already call git-checkpoint
// in an entry of the user's own is left alone.
func installSettings(env Env, path string, s settings) (File, error) {
	src, err := readFile(path)
	if err != nil {
		return File{}, err
	}
	d, err := openSettings(path, src)
	if err != nil {
		return File{}, err
	}
	if s.version != 0 && d.Get("version") == nil {
		// Without it the agent reads no hook of the file.
		if err := d.Put([]string{"version"}, []byte(strconv.Itoa(s.version))); err != nil {
			return File{}, fault.New(fault.InvalidSettings, "cannot add a version to %s: %v", path, err).
				WithHint("fix the file, or add the entries by hand ('git checkpoint install " + s.agent + " --print' shows them)")
		}
	}
	// Entries an older version put on events this one does not use go.
	if hooks := d.Get("hooks"); hooks != nil {
		var stale []string
		for _, m := range hooks.Members {
			if !slices.Contains(s.events, m.Key) {
				stale = append(stale, m.Key)
			}
		}
		for _, event := range stale {
			if err := removeOurs(d, event, s, true); err != nil {
				return File{}, err
			}
		}
	}
	for _, event := range s.events {
		found := false
		if arr := d.Get("hooks", event); arr != nil && arr.Kind == jsontext.Array {
			for i := 0; i < len(arr.Elems); i++ {
				g := arr.Elems[i]
				switch {
				case s.ourGroup(g) && found:
					// A second copy: one call per event is enough.
					if err := d.Remove(g); err != nil {
						return File{}, err
					}
					arr, i = d.Get("hooks", event), i-1
				case s.ourGroup(g):
					found = true
					if !sameJSON(d.Text(g), s.group()) {
						if err := d.Replace(g, s.group()); err != nil {
							return File{}, err
						}
						arr = d.Get("hooks", event)
					}
				case callsUs(g, s.agent):
					found = true
				}
			}
		}
		if !found {
			if err := d.Append([]string{"hooks", event}, s.group()); err != nil {
				return File{}, fault.New(fault.InvalidSettings, "cannot add hooks to %s: %v", path, err).
					WithHint("fix the file, or add the entries by hand ('git checkpoint install " + s.agent + " --print' shows them)")
			}
		}
	}
	dirs := missingDirs(path)
	f, err := writeIfChanged(path, src, d.Src)
	if err == nil && f.Action != "unchanged" {
		rememberInstall(env, path, partHooks, src, d.Src, dirs)
	}
	return f, err
}

// uninstallSettings is the inverse of installSettings. A file that holds
// what install wrote gets its bytes from before back (undo.go). Any other
// loses git-checkpoint's entries, and git-checkpoint's hooks inside
// entries of the user's, then whatever became empty by that, except what
// the user had before the install; the file itself goes only when install
// created it.
func uninstallSettings(env Env, path string, s settings) (File, error) {
	src, err := readFile(path)
	if err != nil {
		return File{}, err
	}
	if src == nil {
		return File{Path: path, Action: "absent"}, nil
	}
	rec := loadUndo(env, path, partHooks)
	var f File
	switch {
	// Bytes from before that call git-checkpoint (an older version's
	// entries) are not given back: they are ours, and go.
	case rec != nil && rec.After == digest(src) && !HoldsHooks(rec.Before) && rec.Absent:
		f, err = removeFile(path, rec.Dirs...)
	case rec != nil && rec.After == digest(src) && !HoldsHooks(rec.Before):
		f, err = writeIfChanged(path, src, rec.Before)
	default:
		f, err = removeEntries(path, src, s, rec)
	}
	if err == nil {
		forgetInstall(env, path, partHooks)
	}
	return f, err
}

// removeEntries removes git-checkpoint's entries from src, the settings
// file at path, knowing from rec (nil when there is none) what was there
// before the install.
func removeEntries(path string, src []byte, s settings, rec *undoRecord) (File, error) {
	d, err := openSettings(path, src)
	if err != nil {
		return File{}, err
	}
	hooks := d.Get("hooks")
	if hooks == nil || hooks.Kind != jsontext.Object {
		return File{Path: path, Action: "unchanged"}, nil
	}
	var events []string
	for _, m := range hooks.Members {
		events = append(events, m.Key)
	}
	emptied := false // an event lost its last entry to this uninstall
	for _, event := range events {
		before := d.Get("hooks", event) != nil
		if err := removeOurs(d, event, s, false); err != nil {
			return File{}, err
		}
		emptied = emptied || (before && d.Get("hooks", event) == nil)
	}
	created := rec != nil && rec.Absent
	if h := d.Get("hooks"); emptied && h != nil && d.Bare(h) && !hadHooks(rec) {
		if err := d.Remove(h); err != nil {
			return File{}, err
		}
		if created && s.version != 0 {
			// The version install added for the hooks goes with them.
			if v := d.Get("version"); v != nil && len(d.Root.Members) == 1 && string(d.Text(v)) == strconv.Itoa(s.version) {
				if err := d.Remove(v); err != nil {
					return File{}, err
				}
			}
		}
		if d.Bare(d.Root) && created {
			// Nothing but what install wrote: the file goes.
			return removeFile(path, rec.Dirs...)
		}
	}
	return writeIfChanged(path, src, d.Src)
}

// hadHooks reports whether the file had a "hooks" object of the user's
// before the install that rec recorded.
func hadHooks(rec *undoRecord) bool {
	if rec == nil || rec.Absent {
		return false
	}
	d, err := jsontext.Open(rec.Before)
	return err == nil && d.Get("hooks") != nil
}

func openSettings(path string, src []byte) (*jsontext.Doc, error) {
	d, err := jsontext.Open(src)
	if err == nil {
		if h := d.Get("hooks"); h != nil && h.Kind != jsontext.Object {
			err = errors.New(`"hooks" is not an object`)
		}
	}
	if err != nil {
		return nil, fault.New(fault.InvalidSettings, "cannot read %s: %v", path, err).
			WithHint("fix the file, or add the entries by hand (see --print); nothing was changed")
	}
	return d, nil
}

// ourGroup reports whether g is an entry git-checkpoint wrote: an object
// with only "hooks" (and a matcher), every hook of which calls it; or,
// with flat entries, a hook of only a type, a timeout and a bash command
// that calls it.
func (s settings) ourGroup(g *jsontext.Value) bool {
	if g.Kind != jsontext.Object {
		return false
	}
	if f := s.flat; f != nil {
		for _, m := range g.Members {
			if m.Key != f.command && m.Key != f.timeout && (m.Key != "type" || !f.typed) {
				return false
			}
		}
		return runsUs(g, s.agent)
	}
	inner := g.Get("hooks")
	if inner == nil || inner.Kind != jsontext.Array || len(inner.Elems) == 0 {
		return false
	}
	for _, m := range g.Members {
		if m.Key != "hooks" && m.Key != "matcher" {
			return false
		}
	}
	for _, h := range inner.Elems {
		c := h.Get("command")
		if c == nil || c.Kind != jsontext.String || !ours(c.Str, s.agent) {
			return false
		}
	}
	return true
}

// runsUs reports whether h, one hook, runs git-checkpoint's hook for
// agent: as its command, or as the bash command of Copilot CLI's hooks.
func runsUs(h *jsontext.Value, agent string) bool {
	for _, key := range []string{"command", "bash"} {
		if c := h.Get(key); c != nil && c.Kind == jsontext.String && ours(c.Str, agent) {
			return true
		}
	}
	return false
}

// removeOurs removes git-checkpoint's entries from one event (only whole
// entries of its own with onlyGroups, its hooks inside the user's entries
// too without), and the event itself when that emptied it.
func removeOurs(d *jsontext.Doc, event string, s settings, onlyGroups bool) error {
	changed := false
	for removed := true; removed; {
		removed = false
		arr := d.Get("hooks", event)
		if arr == nil || arr.Kind != jsontext.Array {
			return nil
		}
		for _, g := range arr.Elems {
			target := s.ourPart(g)
			if onlyGroups && target != g {
				target = nil
			}
			if target != nil {
				if err := d.Remove(target); err != nil {
					return err
				}
				removed, changed = true, true
				break
			}
		}
	}
	// An emptied list goes, unless a comment in it says a person wrote it.
	if arr := d.Get("hooks", event); changed && arr != nil && d.Bare(arr) {
		return d.Remove(arr)
	}
	return nil
}

// ourPart returns what of entry g uninstall removes: the whole entry when
// git-checkpoint wrote it or when it is a hook that calls it, or its hook
// inside an entry of the user's (the entry itself when that was its only
// hook), or nil.
func (s settings) ourPart(g *jsontext.Value) *jsontext.Value {
	if s.ourGroup(g) || runsUs(g, s.agent) {
		return g
	}
	inner := g.Get("hooks")
	if inner == nil || inner.Kind != jsontext.Array {
		return nil
	}
	for _, h := range inner.Elems {
		if runsUs(h, s.agent) {
			if len(inner.Elems) == 1 {
				return g
			}
			return h
		}
	}
	return nil
}

// callsUs reports whether an entry of the user's runs git-checkpoint's
// hook, itself or in its hooks.
func callsUs(g *jsontext.Value, agent string) bool {
	if runsUs(g, agent) {
		return true
	}
	if inner := g.Get("hooks"); inner != nil {
		for _, h := range inner.Elems {
			if runsUs(h, agent) {
				return true
			}
		}
	}
	return false
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return bytes.Equal(compact(x), compact(y))
}

// removeFile deletes a file install created, and its directory when that
// is empty now (.claude, .codex, .gemini), then the directories install
// created for it (innermost first; .github of .github/copilot) that are
// empty now too.
func removeFile(path string, created ...string) (File, error) {
	if err := os.Remove(path); err != nil {
		return File{}, fault.Wrap(err, fault.FailedIO, "cannot remove %s", path)
	}
	os.Remove(filepath.Dir(path))
	for _, dir := range created {
		os.Remove(dir)
	}
	return File{Path: path, Action: "removed"}, nil
}

// missingDirs lists the directories above path that do not exist yet,
// innermost first: those a write of path creates.
func missingDirs(path string) []string {
	var out []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			return out
		}
		out = append(out, dir)
	}
}

// readFile reads a configuration file; a missing one is nil.
func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fault.Wrap(err, fault.FailedIO, "cannot read %s", path)
	}
	return b, nil
}

// writeIfChanged writes data over path unless it is already there: a
// second install changes no byte, not even the file's mtime.
func writeIfChanged(path string, old, data []byte) (File, error) {
	return writeModeIfChanged(path, old, data, 0o644)
}

// writeModeIfChanged is writeIfChanged for a file that is created with
// mode (an executable hook).
func writeModeIfChanged(path string, old, data []byte, mode fs.FileMode) (File, error) {
	if old != nil && bytes.Equal(old, data) {
		return File{Path: path, Action: "unchanged"}, nil
	}
	if err := writeAtomic(path, data, mode); err != nil {
		return File{}, err
	}
	if old == nil {
		return File{Path: path, Action: "created"}, nil
	}
	return File{Path: path, Action: "updated"}, nil
}

// writeAtomic replaces path with data through a temporary file and a
// rename, so that an agent reading its settings never sees half a file.
// A symlinked settings file (dotfiles kept elsewhere) is written where it
// points, and the link stays. The file keeps its mode.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot create %s", filepath.Dir(path))
	}
	// Synced: an agent's settings must not come back empty after a
	// power loss, which would switch its hooks off, or worse. Swept: a
	// write cut short left its temporary file in the person's tree.
	if err := durable.Replace(path, data, durable.How{Perm: mode, Sync: true, Racing: true, Sweep: true}); err != nil {
		return fault.Wrap(err, fault.FailedIO, "cannot write %s", path)
	}
	return nil
}
