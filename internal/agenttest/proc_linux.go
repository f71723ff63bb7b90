package agenttest

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// ownProcessGroup puts the agent in a process group of its own, so that it
// and the processes that stay in its group can be killed at once.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killRun kills the agent's process group, then every process that carries
// the run's marker in its environment: agents start tools in sessions of
// their own (out of the group), and those outlive the agent otherwise.
// It repeats until no marked process is left, since one may fork while
// the others are killed.
func killRun(cmd *exec.Cmd, marker string) error {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	for range 20 {
		pids := markedProcesses(marker)
		if len(pids) == 0 {
			return nil
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// settleHooks waits, up to grace, for the run's git-checkpoint hooks that
// are still running once the agent has exited: Codex starts its notify
// program without waiting for it, and an agent a person keeps open lets
// it finish; killed at once, its checkpoint would be lost to the test's
// haste, not to anything a user meets.
func settleHooks(marker string, grace time.Duration) {
	for end := time.Now().Add(grace); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		hooks := 0
		for _, pid := range markedProcesses(marker) {
			// The hook itself, or the shell of the notify command that
			// runs it ("... git-checkpoint hook codex notify ...").
			cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if bytes.Contains(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), []byte("checkpoint hook ")) {
				hooks++
			}
		}
		if hooks == 0 {
			return
		}
	}
}

// markedProcesses lists the live processes whose environment holds marker.
func markedProcesses(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := append([]byte(marker), 0)
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || len(env) == 0 { // gone, or a zombie
			continue
		}
		if bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
