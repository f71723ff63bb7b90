package gitformat

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LooseHeader reads only the header of a loose object file's bytes: its
// type and the size its body has, without inflating the body.
func LooseHeader(data []byte) (kind string, size int64, err error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", 0, fmt.Errorf("loose object: %w", err)
	}
	defer zr.Close()
	head := make([]byte, 0, 32)
	b := make([]byte, 1)
	for len(head) < cap(head) {
		if _, err := io.ReadFull(zr, b); err != nil {
			return "", 0, fmt.Errorf("loose object: header: %w", err)
		}
		if b[0] == 0 {
			return parseHeader(head)
		}
		head = append(head, b[0])
	}
	return "", 0, fmt.Errorf("loose object: header %q too long", head)
}

// parseHeader reads "<type> <size>" (without its NUL).
func parseHeader(head []byte) (kind string, size int64, err error) {
	kind, sizeText, ok := strings.Cut(string(head), " ")
	if !ok {
		return "", 0, fmt.Errorf("loose object: header %q", head)
	}
	switch kind {
	case "blob", "tree", "commit", "tag":
	default:
		return "", 0, fmt.Errorf("loose object: type %q", kind)
	}
	size, err = strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != sizeText {
		return "", 0, fmt.Errorf("loose object: size %q", sizeText)
	}
	return kind, size, nil
}

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
	kind, size, err := parseHeader(all[:nul])
	if err != nil {
		return "", nil, err
	}
	body = all[nul+1:]
	if int64(len(body)) != size {
		return "", nil, fmt.Errorf("loose object: %d bytes where its header says %d", len(body), size)
	}
	return kind, body, nil
}
