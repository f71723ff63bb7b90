package git

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Object is one answer of `git cat-file --batch`: an object's id, type and
// body, or Missing when the request names no object. WritePack takes its
// type and body as an object to store.
type Object struct {
	ID, Type string
	Body     []byte
	Size     int64 // CatFileCheck's, which reads no body
	Missing  bool
}

// CatFile asks one `git cat-file --batch` for each request (an object id,
// or "<tree-ish>:<path>") and returns the answers in order.
//
// Requests go NUL-delimited (-z), so a path may hold spaces and newlines.
// git 2.39 still answers a request it cannot resolve with the request
// itself, "<request> missing\n", which a name can make look like anything:
// an answer is read as "missing" only when it is exactly that text for the
// request that was sent, and otherwise must be "<id> <type> <size>\n",
// whose id never holds a space.
func (r *Runner) CatFile(ctx context.Context, requests []string) ([]Object, error) {
	out, err := r.catFile(ctx, "--batch", requests)
	if err != nil {
		return nil, err
	}
	objs, err := parseBatch(out, requests)
	for _, o := range objs {
		if o.Type == "tree" {
			r.Trees.Keep(o.ID, o.Body)
		}
	}
	return objs, err
}

// catFile sends requests NUL-delimited to one `git cat-file MODE -z` and
// returns its answers, unparsed.
func (r *Runner) catFile(ctx context.Context, mode string, requests []string) ([]byte, error) {
	var in bytes.Buffer
	for _, req := range requests {
		if strings.IndexByte(req, 0) >= 0 {
			return nil, fmt.Errorf("git cat-file: a request holds a NUL byte: %q", req)
		}
		in.WriteString(req)
		in.WriteByte(0)
	}
	return r.Run(ctx, Cmd{Args: []string{"cat-file", mode, "-z"}, Stdin: in.Bytes()})
}

// CatFileCheck is CatFile without the bodies (`cat-file --batch-check`):
// each answer has its id, type and Size, or Missing.
func (r *Runner) CatFileCheck(ctx context.Context, requests []string) ([]Object, error) {
	out, err := r.catFile(ctx, "--batch-check", requests)
	if err != nil {
		return nil, err
	}
	objs := make([]Object, 0, len(requests))
	for _, req := range requests {
		if rest, ok := cutUnknown(out, req); ok {
			objs, out = append(objs, Object{Missing: true}), rest
			continue
		}
		line, rest, ok := bytes.Cut(out, []byte("\n"))
		f := bytes.Fields(line)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git cat-file --batch-check: unexpected answer %q", line)
		}
		size, err := strconv.ParseInt(string(f[2]), 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("git cat-file --batch-check: unexpected answer %q", line)
		}
		objs, out = append(objs, Object{ID: string(f[0]), Type: string(f[1]), Size: size}), rest
	}
	return objs, nil
}

// cutUnknown cuts the answer of a request cat-file could not resolve
// (missing, or ambiguous) from the front of out.
func cutUnknown(out []byte, req string) ([]byte, bool) {
	if rest, ok := cutAnswer(out, req, "missing"); ok {
		return rest, true
	}
	return cutAnswer(out, req, "ambiguous")
}

// parseBatch reads the answers of cat-file --batch to requests from out.
func parseBatch(out []byte, requests []string) ([]Object, error) {
	objs := make([]Object, 0, len(requests))
	for _, req := range requests {
		if rest, ok := cutUnknown(out, req); ok {
			objs, out = append(objs, Object{Missing: true}), rest
			continue
		}
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch answered %d of %d requests", len(objs), len(requests))
		}
		f := bytes.Fields(out[:nl])
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file --batch: unexpected answer %q", out[:nl])
		}
		size, err := strconv.Atoi(string(f[2]))
		if err != nil || size < 0 || len(out) < nl+1+size+1 {
			return nil, fmt.Errorf("git cat-file --batch: unexpected answer %q", out[:nl])
		}
		body := out[nl+1 : nl+1+size]
		objs = append(objs, Object{ID: string(f[0]), Type: string(f[1]), Body: body})
		out = out[nl+1+size+1:] // the newline after each body
	}
	return objs, nil
}

// cutAnswer reports whether out starts with "<req> <word>\n", and returns
// what follows.
func cutAnswer(out []byte, req, word string) ([]byte, bool) {
	want := req + " " + word + "\n"
	if !bytes.HasPrefix(out, []byte(want)) {
		return out, false
	}
	return out[len(want):], true
}
