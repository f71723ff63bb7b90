// Package config reads git-checkpoint's settings from git config
// (checkpoint.*), with the defaults of the design.
package config

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
)

// Config holds every checkpoint.* setting.
type Config struct {
	MaxFileBytes  int64         // larger new or changed files are skipped
	MaxTotalBytes int64         // a capture adding more new content fails
	Keep          int           // newest checkpoints kept per worktree
	KeepRemote    int           // newest checkpoints kept per fetched store
	KeepFor       time.Duration // checkpoints younger than this are kept
	KeepSafety    time.Duration // pre_rewind checkpoints are kept this long
	LockTimeout   time.Duration
	HookTimeout   time.Duration
	Fsmonitor     bool // let core.fsmonitor speed up scans
	// FsmonitorHook is core.fsmonitor as set: the hook a scan asks
	// when Fsmonitor is on.
	FsmonitorHook string
	Enabled       bool // false stops hook captures only
	// RecordPrompts keeps each turn's prompt in the journal (the log,
	// the picker and bisect show it).
	RecordPrompts bool
	// MCPRewind lets the model apply a rewind through the MCP server
	// (rewind_apply). Off by default: through MCP the agent looks and
	// plans, and the person decides. Only the person's own configuration
	// turns it on (see Within, which decides it).
	MCPRewind bool
	// MCPIgnored are the values of checkpoint.mcpRewind that turned
	// nothing on, for status to name.
	MCPIgnored []Ignored
	// switches are the values of checkpoint.mcpRewind, for Within.
	switches []switchValue
	// EOL says git converts line endings without any attribute asking
	// (core.autocrlf true or input, core.eol crlf), so a checkout may not
	// give back the bytes a capture read.
	EOL bool
	// Conversion is core.autocrlf, core.eol and the filters' clean and
	// process commands as set, for noticing that the way git converts
	// files changed.
	Conversion string
	// AttributesFile is core.attributesFile, where attributes may ask for
	// conversions too ("" for git's default place).
	AttributesFile string
	// PackEvery is how many checkpoints apart the loose objects are
	// packed (capture's PackIfDue); 0 never.
	PackEvery int
	// PartialClone says objects may be missing on purpose
	// (extensions.partialClone): nothing is repacked there.
	PartialClone bool
	// ExcludesFile is core.excludesFile, the user's own ignore rules (""
	// for git's default place): a scan a monitor spares must not miss a
	// change there.
	ExcludesFile string
	// Shared is core.sharedRepository set to share the repository with a
	// group or everyone: git alone writes its object files, with the
	// permissions that asks for.
	Shared bool
	// RequiredFilters are the filter drivers with filter.<name>.required
	// set, which a capture runs as not required: one file whose clean
	// filter fails must not stop every checkpoint (capture.Lenient).
	RequiredFilters []string
}

// Default returns the design's defaults.
func Default() Config {
	return Config{
		MaxFileBytes:  50 << 20,
		MaxTotalBytes: 512 << 20,
		Keep:          200,
		KeepRemote:    200,
		KeepFor:       14 * 24 * time.Hour,
		KeepSafety:    30 * 24 * time.Hour,
		LockTimeout:   10 * time.Second,
		HookTimeout:   20 * time.Second,
		Enabled:       true,
		RecordPrompts: true,
		PackEvery:     64,
	}
}

// keys is what Load asks git for: the settings, and the includes, which
// say the configuration comes from files a Cache cannot name.
const keys = `^(checkpoint\.|core\.(autocrlf|eol|attributesfile|excludesfile|fsmonitor|sharedrepository)$|extensions\.partialclone$|filter\..*\.(required|clean|process)$|include(if\..*)?\.path$)`

// isInclude reports whether e is an include.path or includeIf.*.path.
func isInclude(e git.ConfigEntry) bool {
	k := strings.ToLower(e.Key)
	return strings.HasPrefix(k, "include") && strings.HasSuffix(k, ".path")
}

// Load reads checkpoint.* in one git call. A malformed value is an error
// naming the key, not a silent default.
func Load(ctx context.Context, r *git.Runner) (Config, error) {
	entries, err := r.ConfigGetRegexp(ctx, keys)
	if err != nil {
		return Default(), err
	}
	return parse(entries, r.Env)
}

// parse makes the configuration of git's answer to keys, which git gave
// with env.
func parse(entries []git.ConfigEntry, env []string) (Config, error) {
	c := Default()
	for _, e := range entries {
		if isInclude(e) {
			continue
		}
		key, val := e.Key, e.Value
		// The core.* keys say whether git may convert files between the
		// tree and the index (see capture's raw overlay).
		switch k, v := strings.ToLower(key), strings.TrimSpace(val); k {
		case "core.attributesfile":
			c.AttributesFile = v
			continue
		case "core.fsmonitor":
			c.FsmonitorHook = v
			continue
		case "core.excludesfile":
			c.ExcludesFile = v
			continue
		case "core.sharedrepository":
			// false and umask leave permissions to the umask, as does an
			// unset value; anything else shares (group, all, 0660...).
			on, err := ParseBool(v)
			c.Shared = !(strings.EqualFold(v, "umask") || (err == nil && !on))
			continue
		case "extensions.partialclone":
			c.PartialClone = v != ""
			continue
		}
		if isFilterCommand(key) {
			c.Conversion += strings.ToLower(key) + "=" + val + "\n"
			continue
		}
		if name, ok := filterRequired(key); ok {
			// The last value wins, as in git; one that is not a bool
			// counts as required, the side that runs it leniently.
			if on, err := ParseBool(strings.TrimSpace(val)); err != nil || on {
				c.RequiredFilters = appendNew(c.RequiredFilters, name)
			} else {
				c.RequiredFilters = slices.DeleteFunc(c.RequiredFilters, func(n string) bool { return n == name })
			}
			continue
		}
		switch k, v := strings.ToLower(key), strings.TrimSpace(val); k {
		case "core.eol":
			c.EOL = c.EOL || strings.EqualFold(v, "crlf")
			c.Conversion += k + "=" + v + "\n"
			continue
		case "core.autocrlf":
			on, err := ParseBool(v) // "input" is not a bool, and converts
			c.EOL = c.EOL || on || err != nil
			c.Conversion += k + "=" + v + "\n"
			continue
		}
		name := strings.ToLower(strings.TrimPrefix(key, "checkpoint."))
		var err error
		if name == "mcprewind" {
			var on bool
			if on, err = ParseBool(strings.TrimSpace(val)); err == nil {
				c.addSwitch(on, val, e.Scope, e.Origin, env)
			}
		} else {
			err = c.set(name, strings.TrimSpace(val))
		}
		if err != nil {
			return c, fault.Wrap(err, fault.InvalidConfig, "bad value %q for %s", val, key).
				WithHint("fix it with 'git config " + key + " VALUE'; see git-checkpoint(1), CONFIGURATION")
		}
	}
	return c, nil
}

// filterRequired reads the driver's name of a filter.<name>.required key.
// The name keeps its case: git matches it as written in the attribute.
func filterRequired(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "filter.")
	if !ok || len(key) < len("filter..required") || !strings.EqualFold(key[len(key)-len(".required"):], ".required") {
		return "", false
	}
	return rest[:len(rest)-len(".required")], true
}

// isFilterCommand reports whether key is a filter's clean or process
// command, which decides what git stores for the files it governs.
func isFilterCommand(key string) bool {
	lower := strings.ToLower(key)
	return strings.HasPrefix(lower, "filter.") && (strings.HasSuffix(lower, ".clean") || strings.HasSuffix(lower, ".process"))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func (c *Config) set(key, val string) error {
	var err error
	switch key {
	case "maxfilebytes":
		c.MaxFileBytes, err = ParseBytes(val)
	case "maxtotalbytes":
		c.MaxTotalBytes, err = ParseBytes(val)
	case "keep":
		c.Keep, err = parseCount(val)
	case "packevery":
		c.PackEvery, err = parseCount(val)
	case "keepremote":
		c.KeepRemote, err = parseCount(val)
	case "keepfor":
		c.KeepFor, err = ParseDuration(val)
	case "keepsafety":
		c.KeepSafety, err = ParseDuration(val)
	case "locktimeout":
		c.LockTimeout, err = ParseDuration(val)
	case "hooktimeout":
		c.HookTimeout, err = ParseDuration(val)
	case "fsmonitor":
		c.Fsmonitor, err = ParseBool(val)
	case "enabled":
		c.Enabled, err = ParseBool(val)
	case "recordprompts":
		c.RecordPrompts, err = ParseBool(val)
	}
	return err
}

// parseCount reads a count of 0 or more.
func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a count of 0 or more")
	}
	return n, nil
}

// ParseBytes reads a size the way git does: a number with an optional k, m
// or g suffix (powers of 1024).
func ParseBytes(s string) (int64, error) {
	mult := int64(1)
	switch strings.ToLower(s[len(s)-min(1, len(s)):]) {
	case "k":
		mult = 1 << 10
	case "m":
		mult = 1 << 20
	case "g":
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("want a size such as 50m")
	}
	return n * mult, nil
}

// FormatBytes writes a size as ParseBytes reads it, with the largest
// suffix that keeps it whole (32k, 1g), so that a hint can say what to
// set.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"g", 30}, {"m", 20}, {"k", 10}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseDuration accepts Go durations ("10s", "1h30m") and whole days ("14d").
func ParseDuration(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a duration such as 14d or 10s")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 14d or 10s")
	}
	return d, nil
}

// ParseBool reads a boolean the way git config spells one.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1", "":
		return true, nil
	case "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("want true or false")
}
