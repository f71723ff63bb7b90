// Package fault defines the errors git-checkpoint reports to people and
// programs. Every failure a user can see is an *Error carrying a stable code
// such as "conflict.outside_edits", declared in codes.go; the part before
// the dot is its class, and the class alone decides the exit status (see
// ExitCode), so the mapping from failures to exit codes lives in exactly
// one place.
package fault

import (
	"errors"
	"fmt"
	"strings"
)

// Class is the first part of an error code. It decides the exit status.
type Class string

// The classes of DESIGN section 3, with their exit statuses in ExitCode.
const (
	Failed      Class = "failed"
	Invalid     Class = "invalid"
	NotFound    Class = "not_found"
	Conflict    Class = "conflict"
	Timeout     Class = "timeout"
	Unsupported Class = "unsupported"
)

// Error is a failure meant for a person: what happened (Message), what to do
// next (Hints), and machine-readable details (Data) for --json output.
type Error struct {
	Code    Code   // "class.reason", e.g. "not_found.checkpoint" (see codes.go)
	Message string // lower case, no final period
	Hints   []string
	Data    any
	Err     error // the underlying cause, if any; shown only in logs
}

func (e *Error) Error() string { return e.Message }

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Class returns the part of the code before the first dot.
func (e *Error) Class() Class {
	c, _, _ := strings.Cut(string(e.Code), ".")
	return Class(c)
}

// New returns an *Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error whose message is the formatted text followed by the
// cause's message, keeping the cause for errors.Is.
func Wrap(err error, code Code, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Message: msg, Err: err}
}

// WithHint appends hint lines and returns e, for chaining.
func (e *Error) WithHint(hints ...string) *Error {
	e.Hints = append(e.Hints, hints...)
	return e
}

// WithData attaches machine-readable details and returns e.
func (e *Error) WithData(data any) *Error {
	e.Data = data
	return e
}

// As returns err as an *Error, wrapping anything else as failed.internal so
// that every error has a code.
func As(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	return &Error{Code: FailedInternal, Message: err.Error(), Err: err}
}

// ExitCode maps an error to the process exit status of DESIGN section 3.
// It is the only place where that mapping exists.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *ExitStatus
	if errors.As(err, &ee) {
		return ee.Code
	}
	// `git checkpoint run` reports a program it cannot start as a shell
	// does.
	switch As(err).Code {
	case NotFoundCommand:
		return 127
	case FailedCommandNotExecutable:
		return 126
	}
	switch As(err).Class() {
	case Invalid:
		return 2
	case NotFound:
		return 3
	case Conflict:
		return 5
	case Timeout:
		return 7
	case Unsupported:
		return 10
	default:
		return 1
	}
}

// ExitStatus is not a failure of git-checkpoint: it carries the exit status
// of a command run on the user's behalf (`git checkpoint run`, `diff`), which
// must be passed through unchanged and without an error message.
type ExitStatus struct{ Code int }

func (e *ExitStatus) Error() string { return fmt.Sprintf("exit status %d", e.Code) }
