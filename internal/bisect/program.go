package bisect

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/git-checkpoint/git-checkpoint/internal/fault"
	"github.com/git-checkpoint/git-checkpoint/internal/git"
	"github.com/git-checkpoint/git-checkpoint/internal/program"
)

// Interrupted is the error of a bisect a signal stopped; the command
// line exits 128 plus the signal's number, as a shell does.
type Interrupted struct{ Signal syscall.Signal }

func (e *Interrupted) Error() string { return "stopped by " + signalName(e.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// interrupted returns the signal that arrived, if one did, without waiting.
func (b *Bisector) interrupted() error {
	select {
	case sig := <-b.Signals:
		if s, ok := sig.(syscall.Signal); ok {
			return &Interrupted{Signal: s}
		}
		return &Interrupted{Signal: syscall.SIGINT}
	default:
		return nil
	}
}

// graceKill is how long CMD may outlive a signal passed on before its
// process group is killed.
const graceKill = 5 * time.Second

// run runs argv in dir and returns its exit status as a shell reports it:
// 127 when the program is not found, 126 when it cannot be executed,
// 128+N when signal N killed it. It runs in a process group of its own
// with no stdin: a signal sent to the bisect reaches it (and its
// children), passed on by run, whether it came from a terminal's Ctrl-C
// or from kill; again each second while CMD outlives it, and a second
// signal, or graceKill, kills the group.
func (b *Bisector) run(dir string, argv []string) (int, error) {
	path, err := program.LookPath(argv[0], dir, git.Getenv(b.Env, "PATH"))
	if err != nil {
		// Not there at this checkpoint (a script the tree did not hold
		// yet): a failure of this step, as a shell would report it.
		fmt.Fprintf(b.Output, "bisect: %s\n", fault.As(err).Message)
		return program.ShellStatus(err), nil
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = dir
	cmd.Env = append(b.Env, "PWD="+dir)
	cmd.Stdout, cmd.Stderr = b.Output, b.Output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return program.ShellStatus(program.StartFailure(err, argv[0])), nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var stop *Interrupted
	// again repeats a signal passed on that CMD outlived: a shell running
	// `sh -c` catches SIGINT, and a child it is forking can take the
	// signal in its handler, just before exec, and lose it. A second
	// passes it on again; after graceKill the group is killed.
	var again <-chan time.Time
	repeats := 0
	for {
		select {
		case sig := <-b.Signals:
			s, ok := sig.(syscall.Signal)
			if !ok {
				s = syscall.SIGINT
			}
			if stop != nil {
				s = syscall.SIGKILL
			} else {
				stop = &Interrupted{Signal: s}
				again = time.After(time.Second)
			}
			syscall.Kill(-cmd.Process.Pid, s)
			continue
		case <-again:
			repeats++
			s := stop.Signal
			if repeats*int(time.Second) >= int(graceKill) {
				s = syscall.SIGKILL
			}
			syscall.Kill(-cmd.Process.Pid, s)
			again = time.After(time.Second)
			continue
		case <-done:
		}
		break
	}
	if stop != nil {
		return 0, stop
	}
	return program.Status(cmd.ProcessState), nil
}

// isDir says whether p is a directory.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
