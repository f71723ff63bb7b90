package remote

import (
	"context"
	"errors"
	"iter"
	"os"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/gittest"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/store"
)

// fakeScanner finds "SECRET" on the first line of an item, counts what it
// was given, and fails after reading fail items when fail > 0.
type fakeScanner struct {
	rules   string
	fail    int
	scanned []string
}

func (f *fakeScanner) Rules(context.Context) (string, error) { return f.rules, nil }

func (f *fakeScanner) Scan(_ context.Context, items iter.Seq[secrets.Item]) ([]secrets.Finding, error) {
	var out []secrets.Finding
	i := 0
	for it := range items {
		if f.fail > 0 && i == f.fail {
			return nil, errors.New("the scanner crashed")
		}
		f.scanned = append(f.scanned, it.Name)
		if strings.Contains(string(it.Data), "SECRET") {
			out = append(out, secrets.Finding{Item: i, Line: 1, Rule: "fake"})
		}
		i++
	}
	return out, nil
}

func scanFixture(t *testing.T) (*Pusher, []git.ObjectPath) {
	repo := gittest.NewRepo(t)
	r := &git.Runner{Dir: repo.Dir, Env: repo.Env}
	var blobs []git.ObjectPath
	for _, f := range [][2]string{{"a.txt", "clean\n"}, {"b.txt", "SECRET\n"}, {"c.txt", "also clean\n"}} {
		out, err := r.Run(context.Background(), git.Cmd{Args: []string{"hash-object", "-w", "--stdin"}, Stdin: []byte(f[1])})
		if err != nil {
			t.Fatal(err)
		}
		blobs = append(blobs, git.ObjectPath{OID: strings.TrimSpace(string(out)), Path: f[0]})
	}
	return &Pusher{Git: r, Store: &store.Store{Dir: t.TempDir()}}, blobs
}

func names(fs []secrets.Finding, blobs []git.ObjectPath) string {
	var out []string
	for _, f := range fs {
		out = append(out, blobs[f.Item].Path+":"+f.Rule)
	}
	return strings.Join(out, " ")
}

// TestScanFailedRemembersNothing: a scan that fails remembers no file,
// neither those it read before failing nor the others; the scan after it
// scans them all.
func TestScanFailedRemembersNothing(t *testing.T) {
	p, blobs := scanFixture(t)
	ctx := context.Background()
	if _, err := p.scan(ctx, blobs, &fakeScanner{rules: "r1", fail: 2}); err == nil {
		t.Fatal("a failed scan: no error")
	}
	if _, err := os.Stat(p.Store.Path(scanCacheFile)); !os.IsNotExist(err) {
		t.Fatalf("a failed scan wrote the cache: %v", err)
	}
	s := &fakeScanner{rules: "r1"}
	fs, err := p.scan(ctx, blobs, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(fs, blobs); got != "b.txt:fake" || len(s.scanned) != 3 {
		t.Errorf("found %q scanning %q, want b.txt:fake scanning all three", got, s.scanned)
	}
	// Remembered now: nothing scanned, the finding reported again.
	s = &fakeScanner{rules: "r1"}
	if fs, err = p.scan(ctx, blobs, s); err != nil || names(fs, blobs) != "b.txt:fake" || len(s.scanned) != 0 {
		t.Errorf("again: found %q (%v) scanning %q, want b.txt:fake scanning none", names(fs, blobs), err, s.scanned)
	}
	// Other rules: scanned again.
	s = &fakeScanner{rules: "r2"}
	if fs, err = p.scan(ctx, blobs, s); err != nil || names(fs, blobs) != "b.txt:fake" || len(s.scanned) != 3 {
		t.Errorf("other rules: found %q (%v) scanning %q, want b.txt:fake scanning all three", names(fs, blobs), err, s.scanned)
	}
	// A scanner that cannot name its rules remembers nothing and is
	// given every file.
	s = &fakeScanner{}
	if fs, err = p.scan(ctx, blobs, s); err != nil || len(s.scanned) != 3 {
		t.Errorf("no rules: found %q (%v) scanning %q, want all three scanned", names(fs, blobs), err, s.scanned)
	}
}

// stopScanner reads one item and says it is done: the files it left
// unread were not scanned, and the scan fails.
type stopScanner struct{}

func (stopScanner) Scan(_ context.Context, items iter.Seq[secrets.Item]) ([]secrets.Finding, error) {
	for range items {
		break
	}
	return nil, nil
}

// badScanner names an item it was not given.
type badScanner struct{}

func (badScanner) Scan(context.Context, iter.Seq[secrets.Item]) ([]secrets.Finding, error) {
	return []secrets.Finding{{Item: 7, Rule: "x"}}, nil
}

func TestScanFailsClosed(t *testing.T) {
	p, blobs := scanFixture(t)
	for _, s := range []secrets.Scanner{stopScanner{}, badScanner{}} {
		if fs, err := p.scan(context.Background(), blobs, s); err == nil {
			t.Errorf("%T: no error, found %v", s, fs)
		}
	}
}
