// Package leaks is the full detector of package secrets: gitleaks, with
// its default rules (over 200 providers' key formats, with allowlists
// and entropy checks that hand-written patterns would not match). Only
// the helper program git-checkpoint-scan links it (see package secrets).
package leaks

import (
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
)

// Gitleaks is gitleaks's detector as a secrets.Detector.
type Gitleaks struct{ d *detect.Detector }

// New makes the detector with gitleaks's default configuration; its own
// log is silenced, since it would print what it found.
func New() (*Gitleaks, error) {
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, err
	}
	return &Gitleaks{d: d}, nil
}

// Full is the helper's full detector (see secrets.Full).
func Full() secrets.Full { return secrets.Full{Detectors: Detectors, Rules: Rules} }

// Rules is the version of gitleaks's rules: its default configuration,
// which comes with the module, so the module's version.
func Rules() string { return "gitleaks " + Version }

// Version is the version of the gitleaks module this program links, as
// go.mod requires it (TestVersion checks): a constant, since a test binary
// carries no build information about its modules.
const Version = "v8.30.1"

// Detectors is the helper's list: gitleaks alone (secrets.Main adds the
// package's own rules).
func Detectors() ([]secrets.Detector, error) {
	g, err := New()
	if err != nil {
		return nil, err
	}
	return []secrets.Detector{g}, nil
}

// Find runs gitleaks on one item, named by its path (some of its rules
// and allowlists look at the path). The secret's text becomes ranges
// here.
func (g *Gitleaks) Find(name string, data []byte) []secrets.Finding {
	var out []secrets.Finding
	for _, f := range g.d.Detect(detect.Fragment{Raw: string(data), FilePath: name}) {
		spans := secrets.SpansOf(data, f.Secret)
		line := f.StartLine + 1
		if l := secrets.LineOf(data, spans); l > 0 {
			line = l
		}
		out = append(out, secrets.Finding{Rule: f.RuleID, Line: line, Spans: spans})
	}
	return out
}
