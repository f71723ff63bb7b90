package secrets

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestOwnRules(t *testing.T) {
	for _, c := range []struct {
		name, data string
		rules      string
	}{
		{"db.yml", "url: postgres://user:password@host/app\n", "url-credentials:1"},
		{"a.txt", "x\nhttp://${USER}:${PASS}@host\nhttps://host/path\n", ""},
		{"a.txt", "a\nb\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n", "private-key-block:3"},
		{".env", "A=1\n", "secret-file-name:0"},
		{".env.example", "A=1\n", ""},
		{"keys/id_rsa", "", "secret-file-name:0"},
		{"keys/id_rsa.pub", "", ""},
		{"src/id_card.go", "", ""},
		{"config/credentials.json", "", "secret-file-name:0"},
	} {
		var got []string
		for _, f := range (Own{}).Find(c.name, []byte(c.data)) {
			got = append(got, f.Rule+":"+string(rune('0'+f.Line)))
		}
		if strings.Join(got, " ") != c.rules {
			t.Errorf("%s %q: found %q, want %q", c.name, c.data, got, c.rules)
		}
	}
}

// TestRedactJSONL redacts a key quoted in a transcript line, body and
// all, and the line stays JSON.
func TestRedactJSONL(t *testing.T) {
	line, _ := json.Marshal(map[string]string{"text": "here: -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB+/=\n-----END RSA PRIVATE KEY-----\nand postgres://u:hunter2xyz@db/x done"})
	data := append(append([]byte(`{"a":1}`+"\n"), line...), '\n')
	fs := (Own{}).Find("s.jsonl", data)
	red, err := Redact(data, fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"MIIEpAIB", "hunter2xyz", "BEGIN RSA"} {
		if bytes.Contains(red, []byte(secret)) {
			t.Errorf("%s is still there: %s", secret, red)
		}
	}
	for _, l := range bytes.Split(bytes.TrimSpace(red), []byte("\n")) {
		if !json.Valid(l) {
			t.Errorf("not JSON: %s", l)
		}
	}
	if !bytes.Contains(red, []byte(Marker(RulePrivateKey))) || !bytes.Contains(red, []byte(Marker(RuleURLCredentials))) {
		t.Errorf("no markers: %s", red)
	}
}

// TestServe passes items through the helper's protocol, as Program and
// the helper do.
func TestServe(t *testing.T) {
	var in bytes.Buffer
	for _, it := range []Item{{".env", []byte("A=1\n")}, {"b", []byte("ok\n")}, {"c", []byte("x\npostgres://u:pw12345@h/db\n")}} {
		h, _ := json.Marshal(header{it.Name, len(it.Data)})
		in.Write(append(h, '\n'))
		in.Write(it.Data)
	}
	var out bytes.Buffer
	if err := Serve(&in, &out, Local{Detectors: []Detector{Own{}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "pw12345") {
		t.Fatalf("a secret crossed the pipe: %s", out.String())
	}
	var got []string
	dec := json.NewDecoder(&out)
	for dec.More() {
		var f Finding
		if err := dec.Decode(&f); err != nil {
			t.Fatal(err)
		}
		got = append(got, f.Name+":"+f.Rule)
	}
	if want := ".env:secret-file-name c:url-credentials"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
