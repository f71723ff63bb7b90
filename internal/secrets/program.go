package secrets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os/exec"
	"runtime"
	"strings"
	"sync"
)

// Helper is the name of the program that scans with the full detector
// (cmd/git-checkpoint-scan), installed beside git-checkpoint.
const Helper = "git-checkpoint-scan"

// The helper's protocol, on its standard input: for each item a line
// {"name": NAME, "size": N} and N bytes; on its standard output: one
// Finding per line, as JSON, in the order of the items. Findings carry
// ranges, never a secret's text.
type header struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// Program is a Scanner that runs the helper program at Path.
type Program struct{ Path string }

// Scan streams the items to one run of the helper and reads its findings
// as it goes, so that neither side holds more than one item.
func (p Program) Scan(ctx context.Context, items iter.Seq[Item]) ([]Finding, error) {
	cmd := exec.CommandContext(ctx, p.Path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var findings []Finding
	read := make(chan error, 1)
	go func() {
		dec := json.NewDecoder(out)
		for {
			var f Finding
			if err := dec.Decode(&f); err == io.EOF {
				read <- nil
				return
			} else if err != nil {
				read <- err
				io.Copy(io.Discard, out)
				return
			}
			findings = append(findings, f)
		}
	}()
	w := bufio.NewWriterSize(in, 1<<16)
	werr := func() error {
		for it := range items {
			h, _ := json.Marshal(header{it.Name, len(it.Data)})
			if _, err := w.Write(append(h, '\n')); err != nil {
				return err
			}
			if _, err := w.Write(it.Data); err != nil {
				return err
			}
		}
		return w.Flush()
	}()
	in.Close()
	rerr := <-read
	err = cmd.Wait()
	if err == nil {
		err = errors.Join(werr, rerr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", p.Path, err, strings.TrimSpace(stderr.String()))
	}
	return findings, nil
}

// Serve is the helper's side of the protocol: it reads items from in
// until its end and writes the findings of the local scanner on out,
// scanning on every core (the detectors are safe for concurrent use):
// source text dense in words like key, token or secret costs gitleaks
// about a millisecond a KiB.
func Serve(in io.Reader, out io.Writer, l Local) error {
	type job struct {
		i  int
		it Item
	}
	jobs := make(chan job, 64)
	var mu sync.Mutex
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	var werr error
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 8)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				fs := l.find(j.i, j.it)
				mu.Lock()
				for _, f := range fs {
					if werr == nil {
						werr = enc.Encode(f)
					}
				}
				mu.Unlock()
			}
		}()
	}
	err := func() error {
		r := bufio.NewReaderSize(in, 1<<16)
		for i := 0; ; i++ {
			line, err := r.ReadBytes('\n')
			if err == io.EOF && len(line) == 0 {
				return nil
			}
			if err != nil {
				return err
			}
			var h header
			if err := json.Unmarshal(line, &h); err != nil {
				return fmt.Errorf("item %d: a bad header: %w", i, err)
			}
			data := make([]byte, h.Size)
			if _, err := io.ReadFull(r, data); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
			jobs <- job{i, Item{Name: h.Name, Data: data}}
		}
	}()
	close(jobs)
	wg.Wait()
	if err == nil {
		err = werr
	}
	if err == nil {
		err = w.Flush()
	}
	return err
}

// OwnRules is the version of Own's rules. Bump it with any change to
// what they find: what a scan found in a blob is remembered under the
// version of the rules that found it (Full.Rules), and a change that
// keeps the number would let a push trust what older rules called clean.
const OwnRules = 1

// RulesFlag asks the helper for the version of its rules instead of a
// scan: one line, empty when it cannot tell (then nothing it finds is
// remembered).
const RulesFlag = "--rules"

// Full is the full detector the helper adds to Own: how to make it, and
// the version of its rules ("" when unknown).
type Full struct {
	Detectors func() ([]Detector, error)
	Rules     func() string
}

// Main is the helper program's main: with RulesFlag it prints the version
// of its rules; else it serves with this package's own rules and the
// full detector, and says what failed on stderr.
func Main(args []string, in io.Reader, out, stderr io.Writer, full Full) int {
	if len(args) == 1 && args[0] == RulesFlag {
		v := ""
		if r := full.Rules(); r != "" {
			v = fmt.Sprintf("own %d, %s", OwnRules, r)
		}
		fmt.Fprintln(out, v)
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "%s: error: unknown arguments %q: it reads what to scan on its standard input\n", Helper, args)
		return 2
	}
	ds, err := full.Detectors()
	if err == nil {
		err = Serve(in, out, Local{Detectors: append([]Detector{Own{}}, ds...)})
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", Helper, err)
		return 1
	}
	return 0
}

// Rules runs the helper with RulesFlag: the version of its rules, "" when
// it cannot tell (an older helper, which knows no flags, scans its empty
// input and says nothing).
func (p Program) Rules(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, p.Path, RulesFlag)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", p.Path, RulesFlag, err)
	}
	return strings.TrimSpace(string(out)), nil
}
