// Package secrets finds credentials in what a push would publish: the
// files of checkpoints a remote does not have yet and the transcripts a
// push carries. A finding names the item (a path), the line and the rule,
// and holds the byte ranges of the secret for redaction; nothing here
// ever prints or returns a secret's text.
//
// Two layers find them: a well-kept detector (gitleaks, package leaks),
// which knows the formats of hundreds of providers' keys and their
// allowlists, and this package's own rules (own.go) for what it misses:
// credentials in URLs, private-key blocks and secret-looking file names.
// The detector links 9 MiB and a 2.5 ms start into whatever imports it,
// so it lives only in the helper program git-checkpoint-scan, which a
// push starts (Program); hooks, which must start fast, never load it.
package secrets

import (
	"bytes"
	"context"
	"iter"
	"slices"
	"strings"
)

// Item is one thing to scan: a file of a checkpoint (Name is its path)
// or a transcript.
type Item struct {
	Name string
	Data []byte
}

// Span is a byte range [Start, End) of an item that holds a secret.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Finding is one secret found. Line is 1-based, 0 for a rule on the
// file's name; Spans are where the secret is in the item's data (none
// for a name rule), for Redact.
type Finding struct {
	Item  int    `json:"item"`
	Name  string `json:"name"`
	Line  int    `json:"line"`
	Rule  string `json:"rule"`
	Spans []Span `json:"spans,omitempty"`
}

// Detector finds secrets in one item; the Item field of what it returns
// is set by the caller.
type Detector interface {
	Find(name string, data []byte) []Finding
}

// Scanner scans a stream of items and returns every finding, each with
// the index of its item in the stream.
type Scanner interface {
	Scan(ctx context.Context, items iter.Seq[Item]) ([]Finding, error)
}

// Versioned is a Scanner that names the version of its rules, so that
// what it found in a blob can be remembered for the next scan under the
// same rules; "" says it cannot tell, and nothing is remembered.
type Versioned interface {
	Rules(ctx context.Context) (string, error)
}

// Local is a Scanner that runs its detectors in this process.
type Local struct{ Detectors []Detector }

// Scan runs every detector on every item; findings of several detectors
// on one line of one item by one rule are one.
func (l Local) Scan(ctx context.Context, items iter.Seq[Item]) ([]Finding, error) {
	var out []Finding
	i := 0
	for it := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, l.find(i, it)...)
		i++
	}
	return out, nil
}

func (l Local) find(i int, it Item) []Finding {
	var out []Finding
	type key struct {
		rule string
		line int
	}
	seen := map[key]bool{}
	for _, d := range l.Detectors {
		for _, f := range d.Find(it.Name, it.Data) {
			key := key{f.Rule, f.Line}
			if seen[key] {
				continue
			}
			seen[key] = true
			f.Item, f.Name = i, it.Name
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Line - b.Line })
	return out
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte("\n")) + 1
}

// SpansOf are the ranges of every occurrence of secret in data: a
// detector that reports the secret's text (gitleaks) is turned into
// ranges here, in the helper, so that the text never crosses the pipe.
func SpansOf(data []byte, secret string) []Span {
	var out []Span
	if strings.TrimSpace(secret) == "" {
		return nil
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(secret))
		if i < 0 {
			return out
		}
		out = append(out, Span{off + i, off + i + len(secret)})
		off += i + len(secret)
	}
}

// LineOf is the line of a detector's finding that names none: that of
// its first span.
func LineOf(data []byte, spans []Span) int {
	if len(spans) == 0 {
		return 0
	}
	return lineAt(data, spans[0].Start)
}
