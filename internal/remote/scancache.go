package remote

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/git-checkpoint/git-checkpoint/internal/durable"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// The scan cache remembers what the secret scan found in each blob at
// each path, under the version of the scanner's rules, so that a blob is
// scanned once: a dry run and the push after it, a push refused and
// tried again with --withhold, a push to a second remote scan only what
// they have not scanned yet (docs/speed.md). It remembers findings as
// well as clean blobs, so that a finding is reported on every push, never
// only on the first; it holds where (the line and the rule), never what.
//
// The file (scanCacheFile, in the store) is a header line naming the
// rules, then a line for each blob and path:
//
//	<blob id> <findings> <path, quoted as Go quotes it>
//
// where findings are "-" for none, else LINE:RULE joined by commas. It
// grows by appending; rules of another version start it anew. Nothing in
// it is trusted unless it parses and names the same rules: a line that
// does not parse is a blob scanned again. A blob whose scan failed is
// never written, since a failed scan writes nothing.
const scanCacheFile = "scan-cache"

// scanCacheMax is the size past which the cache is written anew with the
// entries of the last scan alone.
const scanCacheMax = 32 << 20

// scanCache is what was loaded of the cache for one scan.
type scanCache struct {
	path  string
	rules string
	// fresh says the file names other rules, or none: it is rewritten.
	fresh bool
	size  int64
	// found are the entries of the blobs asked for: blob id and path,
	// NUL-joined, to their findings (empty for a clean blob).
	found map[string][]secrets.Finding
}

func cacheKey(oid, path string) string { return oid + "\x00" + path }

// loadScanCache reads the entries of the cache in st for the blobs of
// want under rules. Reading it is best effort: a cache that cannot be
// read is an empty one.
func loadScanCache(st *store.Store, rules string, want map[string]bool) *scanCache {
	c := &scanCache{path: st.Path(scanCacheFile), rules: rules, found: map[string][]secrets.Finding{}, fresh: true}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return c
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(head) != scanCacheHeader(rules) {
		return c
	}
	c.fresh, c.size = false, int64(len(data))
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		oid, tail, ok := bytes.Cut(line, []byte(" "))
		if !ok || !want[string(oid)] {
			continue
		}
		fs, quoted, ok := bytes.Cut(tail, []byte(" "))
		if !ok {
			continue
		}
		path, err := strconv.Unquote(string(quoted))
		if err != nil {
			continue
		}
		findings, ok := parseFindings(string(fs))
		if !ok {
			continue
		}
		c.found[cacheKey(string(oid), path)] = findings
	}
	return c
}

func scanCacheHeader(rules string) string {
	return "git-checkpoint scan cache 1, rules " + strconv.Quote(rules)
}

// parseFindings reads the findings field of an entry.
func parseFindings(s string) ([]secrets.Finding, bool) {
	if s == "-" {
		return []secrets.Finding{}, true
	}
	var out []secrets.Finding
	for _, f := range strings.Split(s, ",") {
		line, rule, ok := strings.Cut(f, ":")
		n, err := strconv.Atoi(line)
		if !ok || err != nil || n < 0 || rule == "" {
			return nil, false
		}
		out = append(out, secrets.Finding{Line: n, Rule: rule})
	}
	return out, true
}

// entry is the line of one blob at one path, and false when its findings
// cannot be written in the format (a rule's name with a separator in it):
// that blob is not remembered.
func entry(oid, path string, findings []secrets.Finding) (string, bool) {
	fs := "-"
	if len(findings) > 0 {
		var parts []string
		for _, f := range findings {
			if f.Rule == "" || strings.ContainsAny(f.Rule, " ,:\n") {
				return "", false
			}
			parts = append(parts, fmt.Sprintf("%d:%s", f.Line, f.Rule))
		}
		fs = strings.Join(parts, ",")
	}
	return oid + " " + fs + " " + strconv.Quote(path) + "\n", true
}

// add writes the entries of a scan: appended to the file, or, when it
// named other rules or grew too large, in a new file with the header and
// these alone (kept, the entries this scan found in the cache). Best
// effort: a cache that cannot be written costs a scan next time.
func (c *scanCache) add(added, kept []string) error {
	var b strings.Builder
	flags := os.O_RDWR | os.O_APPEND
	if c.fresh || c.size > scanCacheMax {
		b.WriteString(scanCacheHeader(c.rules) + "\n")
		for _, e := range kept {
			b.WriteString(e)
		}
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	for _, e := range added {
		b.WriteString(e)
	}
	if b.Len() == 0 {
		return nil
	}
	if flags&os.O_TRUNC != 0 {
		// A file of its own, renamed into place: a push that appends
		// at the same time appends to the file it opened, which is
		// then no one's.
		// Not synced: a cache, which a scan fills again.
		return durable.Replace(c.path, []byte(b.String()), durable.How{Racing: true})
	}
	f, err := os.OpenFile(c.path, flags, store.PrivateFile)
	if err != nil {
		return err
	}
	defer f.Close()
	// Appended only under the header read: another push may have
	// started the file anew for other rules since.
	head := make([]byte, len(scanCacheHeader(c.rules))+1)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != scanCacheHeader(c.rules)+"\n" {
		return fmt.Errorf("%s names other rules now", c.path)
	}
	_, err = f.WriteString(b.String())
	return err
}
