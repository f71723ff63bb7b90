package cli

import (
	"strings"
	"testing"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
)

// TestWriteErrorLikeOtherOutput checks that the error document is written
// as the commands' documents are: indented, keys in order, and & < > left
// as they are in the message and the data.
func TestWriteErrorLikeOtherOutput(t *testing.T) {
	var b strings.Builder
	fe := fault.New("not_found.path", "no path a&b<c>").WithData(map[string]string{"path": "a&b<c>"}).WithHint("try a&b")
	if err := writeError(&b, fe); err != nil {
		t.Fatal(err)
	}
	want := `{
  "error": {
    "code": "not_found.path",
    "message": "no path a&b<c>",
    "data": {
      "path": "a&b<c>"
    },
    "hints": [
      "try a&b"
    ]
  }
}
`
	if b.String() != want {
		t.Errorf("writeError wrote\n%s\nwant\n%s", b.String(), want)
	}
}
