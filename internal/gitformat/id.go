package gitformat

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
)

// ID is the id git gives an object of type kind with body: the
// repository's hash (SHA-1, or SHA-256 for 64-digit ids) of
// "<kind> <size>\0<body>", in hex.
func ID(kind string, body []byte, hexLen int) string {
	return hex.EncodeToString(sum(hashOf(hexLen), kind, body))
}

// hashOf is the hash of a repository whose ids have hexLen digits.
func hashOf(hexLen int) func() hash.Hash {
	if hexLen == 64 {
		return sha256.New
	}
	return sha1.New
}

// sum is an object's id, raw, made by newHash.
func sum(newHash func() hash.Hash, kind string, body []byte) []byte {
	h := newHash()
	h.Write(header(kind, int64(len(body))))
	h.Write(body)
	return h.Sum(nil)
}

// header is what an object's id hashes before its body.
func header(kind string, size int64) []byte {
	return []byte(kind + " " + strconv.FormatInt(size, 10) + "\x00")
}

// IDOf is ID of a body of size bytes read from r, without holding it in
// memory: a file taken out of the tree by a rewind is compared with its
// blob this way, whatever its size. It fails when r gives another number
// of bytes.
func IDOf(kind string, size int64, r io.Reader, hexLen int) (string, error) {
	h := hashOf(hexLen)()
	h.Write(header(kind, size))
	n, err := io.Copy(h, r)
	if err != nil {
		return "", err
	}
	if n != size {
		return "", fmt.Errorf("%d bytes where %d were expected", n, size)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EmptyTree is the id of the tree with no entries in a repository whose
// ids have hexLen digits.
func EmptyTree(hexLen int) string {
	if hexLen == 64 {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}
