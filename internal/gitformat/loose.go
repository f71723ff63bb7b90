package gitformat

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseLoose reads a loose object file's bytes (zlib of "<type>
// <size>\0<body>", gitformat-loose(5)) and returns its type and body. The
// body must have the size the header gives, and nothing may follow it.
// The header's size is not trusted for an allocation: the body grows as
// it is inflated.
func ParseLoose(data []byte) (kind string, body []byte, err error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", nil, fmt.Errorf("loose object: %w", err)
	}
	defer zr.Close()
	all, err := io.ReadAll(zr)
	if err != nil {
		return "", nil, fmt.Errorf("loose object: %w", err)
	}
	nul := bytes.IndexByte(all, 0)
	if nul < 0 {
		return "", nil, fmt.Errorf("loose object: no header")
	}
	kind, sizeText, ok := strings.Cut(string(all[:nul]), " ")
	if !ok {
		return "", nil, fmt.Errorf("loose object: header %q", all[:nul])
	}
	switch kind {
	case "blob", "tree", "commit", "tag":
	default:
		return "", nil, fmt.Errorf("loose object: type %q", kind)
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != sizeText {
		return "", nil, fmt.Errorf("loose object: size %q", sizeText)
	}
	body = all[nul+1:]
	if int64(len(body)) != size {
		return "", nil, fmt.Errorf("loose object: %d bytes where its header says %d", len(body), size)
	}
	return kind, body, nil
}
