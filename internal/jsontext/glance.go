package jsontext

import "bytes"

// StringAfter reads, without decoding, the string that follows prefix at
// the start of b: prefix ends with a key's colon and the value's opening
// quote, in text json.Marshal wrote (no space between). It returns the
// value and what follows its closing quote. A value with an escape is
// refused (ok false), so what it returns is the decoded string; inside a
// JSON string every quote is escaped, so a quoted key found in such text
// is always a key. The journal's lines and the private index's state are
// read this way where decoding them costs a command its time.
func StringAfter(b []byte, prefix string) (value string, rest []byte, ok bool) {
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return "", nil, false
	}
	b = b[len(prefix):]
	end := bytes.IndexByte(b, '"')
	if end < 0 || bytes.IndexByte(b[:end], '\\') >= 0 {
		return "", nil, false
	}
	return string(b[:end]), b[end+1:], true
}
