package sandbox

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Server processes are started with Pdeathsig=SIGKILL so that they die with quadrant even when quadrant
// is SIGKILLed and cannot clean up. Linux delivers the parent-death signal when the *thread* that forked
// the child exits, not the process; the Go runtime may retire threads at any time, so every fork happens
// on one goroutine locked to its OS thread that never returns. This is process-wide by nature (there is one
// such thread per process), hence the package-level state.
var launcher struct {
	once sync.Once
	reqs chan launchReq
}

type launchReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startProcess starts cmd in its own process group (a Ctrl-C on the terminal reaches quadrant, which then
// shuts servers down in order, instead of killing them mid-write) with the parent-death signal set.
func startProcess(cmd *exec.Cmd) error {
	launcher.once.Do(func() {
		launcher.reqs = make(chan launchReq)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread must live as long as the process
			for r := range launcher.reqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	launcher.reqs <- launchReq{cmd: cmd, done: done}
	return <-done
}
