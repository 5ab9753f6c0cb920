package owned

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// ownerEnv marks the process `up --detach` starts: it owns the sandbox as `up` in the
// foreground would, and hands its output back once the servers answer.
const ownerEnv = "QUADRANT_SANDBOX_OWNER"

// ready is what the owner of a detached sandbox writes on fd 3 once its servers answer.
const ready = "ready\n"

// IsOwner says this process is the owner `up --detach` started (Detach); it then keeps
// the ready pipe (fd 3) from the servers it starts: up --detach waits until every copy of
// its write end is closed.
func IsOwner() bool {
	if os.Getenv(ownerEnv) == "" {
		return false
	}
	syscall.CloseOnExec(3)
	return true
}

// OwnerExitError is the exit code of an owner process that ended before its servers answered.
type OwnerExitError struct{ Code int }

func (e *OwnerExitError) Error() string {
	return fmt.Sprintf("the owner process exited with %d", e.Code)
}

// Detach starts cmd (`up` again, without --detach) as the sandbox's owner, in a session of
// its own (so neither the terminal's hangup nor its Ctrl-C reach it, and its servers die
// with it rather than with this process), passes on what it prints until it says the
// servers answer, and returns: nil with the servers answering, an *OwnerExitError when the
// owner failed with an exit code of its own, else why it could not be started.
func Detach(cmd *exec.Cmd, stdout, stderr io.Writer) error {
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer readyR.Close()
	cmd.Env = append(os.Environ(), ownerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.ExtraFiles = []*os.File{readyW} // fd 3: the owner writes "ready" there once the servers answer
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return err
	}
	// The owner closes its output once it is ready (DetachOutput), or exits: either way the
	// copies end, and the ready pipe says which.
	copied := make(chan struct{}, 2)
	go func() { io.Copy(stdout, outR); copied <- struct{}{} }()
	go func() { io.Copy(stderr, errR); copied <- struct{}{} }()
	said, _ := io.ReadAll(readyR)
	<-copied
	<-copied
	if string(said) == ready {
		return nil
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code > 0 {
		return &OwnerExitError{Code: code}
	}
	return fmt.Errorf("the owner process ended before the servers were up: %v", err)
}

// DetachOutput tells `up --detach` that the servers answer and points the owner's stdout and
// stderr at its log file (Claim.LogPath), which closes the pipes that process reads.
func DetachOutput(logPath string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600) // one sandbox's worth per name
	if err != nil {
		return fmt.Errorf("owner log: %w", err)
	}
	defer f.Close()
	for _, fd := range []int{1, 2} {
		if err := syscall.Dup3(int(f.Fd()), fd, 0); err != nil {
			return fmt.Errorf("owner log: %w", err)
		}
	}
	r := os.NewFile(3, "ready")
	if _, err := r.WriteString(ready); err != nil {
		return fmt.Errorf("tell up --detach the servers are ready: %w", err)
	}
	return r.Close()
}
