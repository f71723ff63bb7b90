package git

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
)

// ObjectID is the id git gives an object of type kind with body: the
// repository's hash (SHA-1, or SHA-256 for 64-digit ids) of
// "<kind> <size>\0<body>", in hex.
func ObjectID(kind string, body []byte, hexLen int) string {
	newHash := sha1.New
	if hexLen == 64 {
		newHash = sha256.New
	}
	return hex.EncodeToString(objectSum(newHash, kind, body))
}

// objectSum is that hash, made by newHash.
func objectSum(newHash func() hash.Hash, kind string, body []byte) []byte {
	h := newHash()
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	return h.Sum(nil)
}

// ObjectIDOf is ObjectID of a body of size bytes read from r, without
// holding it in memory: a file taken out of the tree by a rewind is
// compared with its blob this way, whatever its size. It fails when r
// gives another number of bytes.
func ObjectIDOf(kind string, size int64, r io.Reader, hexLen int) (string, error) {
	newHash := sha1.New
	if hexLen == 64 {
		newHash = sha256.New
	}
	h := newHash()
	h.Write([]byte(kind + " " + strconv.FormatInt(size, 10) + "\x00"))
	n, err := io.Copy(h, r)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("%d bytes where %d were expected", n, size)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
