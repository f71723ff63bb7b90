package secrets

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// Own is this package's layer of rules, for what a general detector
// misses or cannot know: a password in a URL of any scheme (gitleaks
// missed postgres://user:password@host), a private-key block whatever
// its kind, and files whose name says they hold secrets, whatever their
// content says.
type Own struct{}

// Rules of Own.
const (
	RuleURLCredentials = "url-credentials"
	RulePrivateKey     = "private-key-block"
	RuleSecretFileName = "secret-file-name"
)

// urlCredentials is scheme://user:password@host; the password is the
// secret. Quotes, spaces and angle brackets end it, so that a URL inside
// a JSON string or prose stops where it does.
var urlCredentials = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s/:@"'<>\\]{0,128}:([^\s/@"'<>\\]{1,256})@[A-Za-z0-9.-]+`)

// urlMatches are urlCredentials.FindAllSubmatchIndex(data, -1), found
// only on the lines that hold "://": no match spans a line (none of its
// classes takes a newline), and a line starts and ends at a non-word
// byte as \b needs, so the matches are the same. Run on the whole of
// every file, the expression, which has no literal prefix to look for,
// cost a quarter of the scan of a push (docs/speed.md).
func urlMatches(data []byte) [][]int {
	var out [][]int
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte("://"))
		if i < 0 {
			return out
		}
		start := bytes.LastIndexByte(data[:from+i], '\n') + 1
		end := len(data)
		if j := bytes.IndexByte(data[from+i:], '\n'); j >= 0 {
			end = from + i + j
		}
		for _, m := range urlCredentials.FindAllSubmatchIndex(data[start:end], -1) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += start
				}
			}
			out = append(out, m)
		}
		if end == len(data) {
			return out
		}
		from = end + 1
	}
}

// privateKeyHeader starts a PEM or OpenSSH private key ("-----BEGIN RSA
// PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN
// PGP PRIVATE KEY BLOCK-----").
var privateKeyHeader = regexp.MustCompile(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)

// privateKeyEnd ends one.
var privateKeyEnd = regexp.MustCompile(`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)

// Find applies the rules to one item.
func (Own) Find(name string, data []byte) []Finding {
	var out []Finding
	if secretName(name) {
		out = append(out, Finding{Rule: RuleSecretFileName})
	}
	for _, m := range urlMatches(data) {
		if placeholder(string(data[m[2]:m[3]])) {
			continue
		}
		s := []Span{{m[2], m[3]}}
		out = append(out, Finding{Rule: RuleURLCredentials, Line: LineOf(data, s), Spans: s})
	}
	for _, m := range privateKeyHeader.FindAllIndex(data, -1) {
		s := []Span{{m[0], keyEnd(data, m[1])}}
		out = append(out, Finding{Rule: RulePrivateKey, Line: LineOf(data, s), Spans: s})
	}
	return out
}

// keyEnd is where the key block that starts before from ends: after its
// END line when there is one before the next header, else after the run
// of base64 and line breaks (real ones, or a JSON string's \n) that
// follows the header, so that the redaction of a key quoted in a
// transcript takes its body and stops at the string's end.
func keyEnd(data []byte, from int) int {
	rest := data[from:]
	if m := privateKeyEnd.FindIndex(rest); m != nil {
		if next := privateKeyHeader.FindIndex(rest); next == nil || next[0] > m[0] {
			return from + m[1]
		}
	}
	i := 0
	for i < len(rest) {
		c := rest[i]
		switch {
		case c == '\\' && i+1 < len(rest) && (rest[i+1] == 'n' || rest[i+1] == 'r'):
			i += 2
			continue
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '+', c == '/', c == '=', c == '\n', c == '\r', c == ' ', c == ':', c == '-', c == ',':
			i++
			continue
		}
		break
	}
	return from + i
}

// placeholder reports a URL password that is not one: a variable to be
// expanded, a template or a mask.
func placeholder(pw string) bool {
	switch {
	case strings.HasPrefix(pw, "$"), strings.HasPrefix(pw, "%"), strings.HasPrefix(pw, "{{"),
		strings.Trim(pw, "*") == "", strings.Trim(pw, "x") == "", strings.Trim(pw, "X") == "":
		return true
	}
	return false
}

// secretName reports a file whose name says it holds secrets: .env and
// its variants but the templates committed beside them (.env.example,
// .env.sample, .env.template, .env.dist), *.pem and *.key files, the
// private keys ssh-keygen writes (id_rsa, id_ed25519, ..., not their
// .pub), and credentials files (credentials, credentials.json, ...).
func secretName(p string) bool {
	base := path.Base(p)
	lower := strings.ToLower(base)
	switch {
	case lower == ".env" || strings.HasPrefix(lower, ".env."):
		for _, t := range []string{".example", ".sample", ".template", ".dist"} {
			if strings.HasSuffix(lower, t) {
				return false
			}
		}
		return true
	case strings.HasSuffix(lower, ".pem"), strings.HasSuffix(lower, ".key"):
		return true
	case strings.HasPrefix(lower, "credentials"):
		return true
	}
	switch strings.TrimSuffix(lower, "_sk") {
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519":
		return true
	}
	return false
}
