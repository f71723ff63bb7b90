package git

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// BlobFile is a blob to write into a file of its own.
type BlobFile struct {
	OID  string
	Mode string // 100644, 100755 or 120000
	Path string // absolute; nothing is there yet
}

// CheckoutBlobs writes each blob into its file as `git checkout-index`
// writes a file that no conversion applies to (no attribute, no
// core.autocrlf, core.symlinks on): the blob's bytes, in a file created
// with 0666 or, for 100755, 0777, less the umask (git's create_file); for
// 120000 a symlink whose target is the blob's bytes. The blobs are read
// by one `git cat-file --batch` and each streamed into its file, where a
// temporary index and checkout-index were two processes (docs/speed.md).
// older says every blob was in the repository before the work aside
// (Cmd.Older): they are read while it runs.
func (r *Runner) CheckoutBlobs(ctx context.Context, files []BlobFile, older bool) error {
	for _, f := range files {
		switch f.Mode {
		case "100644", "100755", "120000":
		default:
			return fmt.Errorf("git cat-file: cannot check out %s as a file: mode %s", f.Path, f.Mode)
		}
	}
	if len(files) == 0 {
		return nil
	}
	p, err := r.startBatch(ctx, older)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		var in strings.Builder
		for _, f := range files {
			in.WriteString(f.OID + "\n")
		}
		_, err := io.WriteString(p.in, in.String())
		errc <- err
	}()
	werr := func() error {
		// One buffer for every file: a fresh one each (io.Copy's) cost
		// more in page faults than the writes on this project's machines.
		buf := make([]byte, 64<<10)
		for _, f := range files {
			if err := writeBlob(p, f, buf); err != nil {
				return err
			}
		}
		return nil
	}()
	if werr != nil {
		p.in.Close() // unblocks the writer; close drains the rest
	}
	err = <-errc
	if cerr := p.close(); werr == nil && err == nil {
		err = cerr
	}
	if werr != nil {
		return werr
	}
	return err
}

// writeBlob reads the next answer of p, which must be the blob f names,
// into f's file, through buf.
func writeBlob(p *batchProc, f BlobFile, buf []byte) error {
	line, err := p.out.ReadString('\n')
	if err != nil {
		return fmt.Errorf("git cat-file --batch: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || fields[0] != f.OID || fields[1] != "blob" {
		return fmt.Errorf("git cat-file --batch: %q answered for blob %s", strings.TrimSpace(line), f.OID)
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || size < 0 {
		return fmt.Errorf("git cat-file --batch: %q answered for blob %s", strings.TrimSpace(line), f.OID)
	}
	if f.Mode == "120000" {
		target := make([]byte, size)
		if _, err := io.ReadFull(p.out, target); err != nil {
			return err
		}
		if err := os.Symlink(string(target), f.Path); err != nil {
			return err
		}
	} else {
		perm := os.FileMode(0o666)
		if f.Mode == "100755" {
			perm = 0o777
		}
		file, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		for left := size; left > 0 && err == nil; {
			n := int(min(left, int64(len(buf))))
			if _, err = io.ReadFull(p.out, buf[:n]); err == nil {
				_, err = file.Write(buf[:n])
			}
			left -= int64(n)
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if b, err := p.out.ReadByte(); err != nil || b != '\n' {
		return fmt.Errorf("git cat-file --batch: blob %s is not followed by a newline", f.OID)
	}
	return nil
}

// ReadBlobs reads the blobs oids name, in order, through one `git
// cat-file --batch`, and gives each body to each as it comes, so that
// neither side holds more than one: the secret scan of a push reads every
// file it publishes first, where a process for each 512 of them cost a
// start and a copy of the whole batch each (docs/speed.md). each may keep
// the body. An error of each stops the reading and is returned.
func (r *Runner) ReadBlobs(ctx context.Context, oids []string, each func(i int, body []byte) error) error {
	if len(oids) == 0 {
		return nil
	}
	p, err := r.startBatch(ctx, false)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.in, 64<<10)
		for _, o := range oids {
			if _, err := w.WriteString(o + "\n"); err != nil {
				errc <- err
				return
			}
		}
		errc <- w.Flush()
	}()
	rerr := func() error {
		for i, o := range oids {
			body, err := readBlob(p, o)
			if err != nil {
				return err
			}
			if err := each(i, body); err != nil {
				return err
			}
		}
		return nil
	}()
	if rerr != nil {
		p.in.Close() // unblocks the writer; close drains the rest
	}
	werr := <-errc
	if cerr := p.close(); rerr == nil && werr == nil {
		werr = cerr
	}
	if rerr != nil {
		return rerr
	}
	return werr
}

// readBlob reads the next answer of p, which must be the blob oid.
func readBlob(p *batchProc, oid string) ([]byte, error) {
	line, err := p.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || fields[0] != oid || fields[1] != "blob" {
		return nil, fmt.Errorf("git cat-file --batch: %q answered for blob %s", strings.TrimSpace(line), oid)
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil || size < 0 {
		return nil, fmt.Errorf("git cat-file --batch: %q answered for blob %s", strings.TrimSpace(line), oid)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(p.out, body); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: blob %s: %w", oid, err)
	}
	if b, err := p.out.ReadByte(); err != nil || b != '\n' {
		return nil, fmt.Errorf("git cat-file --batch: blob %s is not followed by a newline", oid)
	}
	return body, nil
}
