package leaks_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/secrets"
	"github.com/git-checkpoint/git-checkpoint/internal/secrets/leaks"
)

// planted is a set of made-up secrets of different kinds, each as a file
// would hold it. None is real: the values are random.
var planted = []struct{ kind, name, content string }{
	{"aws access key id", "deploy.sh", "export AWS_ACCESS_KEY_ID=AKIANBHNV5MQVCRF7BPV\n"},
	{"aws secret access key", "aws.ini", "[default]\naws_secret_access_key = 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\n"},
	{"github classic token", "gh.txt", "token: ghp_csSWj9DxQSYgDMFMbGBKxN28J4W8Bzld2g0h\n"},
	{"github fine-grained token", "ci.yml", "GH_TOKEN: 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\n"},
	{"gitlab token", "gl.txt", "GITLAB_TOKEN=glpat-BcE9AMXfwiPf3QUjKZtg\n"},
	{"slack bot token", "slack.go", "const tok = \"xoxb-2417385961-4926381057264-xcwe0ha0tSf9SLoqLbQ3rVA8\"\n"},
	{"slack webhook", "notify.py", "URL = 'https://hooks.slack.com/services/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'\n"},
	{"stripe secret key", "pay.js", "const stripe = require('stripe')('sk_live_SIBCLcjag5Y0hiVbX504XvhT');\n"},
	{"openai key", "ai.py", "client = OpenAI(api_key=\"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\")\n"},
	{"anthropic key", "claude.env.sh", "ANTHROPIC_API_KEY=sk-ant-api03-TQUmX5PNAE7xVM3ELgxMqtBrwyH-XxGnUrn3NGmtYgW468nb_9jKnA5l29sxTakHQflPxcTAPp17hbkCnzBFfYfomMdjCAA\n"},
	{"google api key", "maps.js", "const key = \"AIzaHJYxvP_00Q6VA43_ct4ewoj4j7npcGYD-bE\";\n"},
	{"npm token", "npmrc.txt", "//registry.npmjs.org/:_authToken=npm_uxgzfia6HMePh3BcRemVQgJJ7BZGbwS4Luxs\n"},
	{"pypi token", "pypirc.txt", "password = pypi-AgEIcHlwaS5vcmc2c4ldbhc2IGMdT5NepYMIOkTfBp1QU5Ko-Txn4239wCIH-0nOPKn49GXZecb\n"},
	{"sendgrid key", "mail.rb", "SENDGRID = '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'\n"},
	{"twilio api key", "sms.txt", "TWILIO_API_KEY=SK0ca9576dca77a7f29a3fa3c109a690c1\n"},
	{"azure storage key", "azure.txt", "DefaultEndpointsProtocol=https;AccountName=mystore;AccountKey=Ohe8ZpEqh2SkFpJd5mDP+1TVl3NET18lgAmXLz36ulSvd6EcPZPv91w7gp6f0aK4IrQDGXUXmRKTqV74bud3ad==;EndpointSuffix=core.windows.net\n"},
	{"hugging face token", "hf.py", "HF_TOKEN = \"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\"\n"},
	{"jwt", "auth.http", "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MzE3Nzk1ODIiLCJuYW1lIjoiUm9iaW4gVGFubmVyIiwiaWF0IjoxNzE2MjM5MDIyfQ.dctyXxoT1TPi9OrPq5YtFanCp1zW2nbxWqMZ3k\n"},
	{"generic password", "settings.py", "DATABASE_PASSWORD = \"dctyXxoT1TPi9OrP\"\n"},
	{"rsa private key", "server.crt.txt", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAvLySOt40aIFOMbwhNqp5RGsDdlIHw4fvlWMrUiV5Uk9iotq1\nKSIhYt6SOctFxRl4Ohe8ZpEqh2SkFpJd5mDP1TVl3NET18lgAmXLz36ulSvd6Ec\n-----END RSA PRIVATE KEY-----\n"},
	{"openssh key header alone", "notes.txt", "-----BEGIN OPENSSH PRIVATE KEY-----\n"},
	{"postgres url", "db.yml", "url: postgres://user:password@db.internal:5432/app\n"},
	{"redis url without user", "cache.conf", "REDIS_URL=redis://:p4ssw0rdXyzQ@cache.internal:6379/0\n"},
	{"mongodb url", "mongo.txt", "mongodb+srv://admin:dctyXxoT1TPi9OrP@cluster0.ab1cd.mongodb.net/prod\n"},
	{"basic auth header", "req.txt", "curl -H 'Authorization: Basic YWRtaW46ZGN0eVh4b1QxVFBpOU9yUA==' https://api.internal/\n"},
	{"dotenv by name", ".env", "SESSION_KEY=local\n"},
	{"pem by name", "certs/site.pem", "not a key, but named as one\n"},
	{"ssh key by name", "id_ed25519", "(empty key file)\n"},
	{"credentials by name", "credentials.json", "{}\n"},
}

// missed are the planted kinds neither layer finds, and gitleaksMissed
// those gitleaks alone does not, as measured: a change of gitleaks or
// of the own rules shows here.
var (
	missed         = []string(nil)
	gitleaksMissed = []string{"openssh key header alone", "postgres url", "redis url without user", "mongodb url",
		"dotenv by name", "pem by name", "ssh key by name", "credentials by name"}
)

// TestRecall scans the planted set with both layers (gitleaks and the
// own rules), reports what each finds, and pins what neither does.
func TestRecall(t *testing.T) {
	g, err := leaks.New()
	if err != nil {
		t.Fatal(err)
	}
	var got, alone []string
	found := 0
	for _, p := range planted {
		var rules []string
		for _, d := range []secrets.Detector{g, secrets.Own{}} {
			fs := d.Find(p.name, []byte(p.content))
			if d == secrets.Detector(g) && len(fs) == 0 {
				alone = append(alone, p.kind)
			}
			for _, f := range fs {
				rules = append(rules, f.Rule)
				for _, s := range f.Spans {
					if s.Start < 0 || s.End > len(p.content) || s.Start >= s.End {
						t.Errorf("%s: span %v out of the content", p.kind, s)
					}
				}
			}
		}
		if len(rules) == 0 {
			got = append(got, p.kind)
			t.Logf("missed: %s", p.kind)
			continue
		}
		found++
		t.Logf("found:  %-26s %s", p.kind, strings.Join(rules, " "))
	}
	t.Logf("recall: %d of %d; gitleaks alone: %d", found, len(planted), len(planted)-len(alone))
	if !slices.Equal(got, missed) {
		t.Errorf("missed %q, want %q", got, missed)
	}
	if !slices.Equal(alone, gitleaksMissed) {
		t.Errorf("gitleaks alone missed %q, want %q", alone, gitleaksMissed)
	}
}

// TestScanPlanted runs the planted set through a Local scanner with both
// layers, as the helper does, and checks each finding's line.
func TestScanPlanted(t *testing.T) {
	g, err := leaks.New()
	if err != nil {
		t.Fatal(err)
	}
	items := func(yield func(secrets.Item) bool) {
		for _, p := range planted {
			if !yield(secrets.Item{Name: p.name, Data: []byte(p.content)}) {
				return
			}
		}
	}
	fs, err := secrets.Local{Detectors: []secrets.Detector{secrets.Own{}, g}}.Scan(context.Background(), items)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Name != planted[f.Item].name {
			t.Errorf("finding %+v names another item", f)
		}
	}
}
