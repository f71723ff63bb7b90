package git

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"hash"
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
