package sandbox_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// The orphan test re-executes the test binary as a stand-in for quadrant: the child starts a sandbox,
// reports its servers' pids and waits; the test SIGKILLs it, so no cleanup code can run.
const helperEnv = "QUADRANT_SANDBOX_ORPHAN_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		orphanHelper(dir)
		return
	}
	os.Exit(m.Run())
}

// orphanHelper behaves like `quadrant sandbox up`: SIGINT/SIGTERM stop the cluster and exit 0.
func orphanHelper(dir string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := sandbox.Start(ctx, sandbox.Options{Name: "orphan", Dir: dir, Replicas: 1})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	var pids []string
	for _, s := range c.Servers() {
		pids = append(pids, strconv.Itoa(s.Pid()))
	}
	fmt.Println("READY", c.Dir(), strings.Join(pids, " "))
	<-ctx.Done()
	if err := c.Stop(context.Background()); err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startHelper runs the helper and returns it with its cluster dir, after checking the reported pids
// are that cluster's servers.
func startHelper(t *testing.T, dir string) (*exec.Cmd, string) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "READY ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper did not start a sandbox: %q %v", line, err)
	}
	f := strings.Fields(line)
	clusterDir, pids := f[1], f[2:]
	if len(pids) != 2 {
		t.Fatalf("helper reported %v", f)
	}
	for _, p := range pids {
		if !strings.Contains(cmdline(p), clusterDir) {
			t.Fatalf("pid %s is not a server of %s: %q", p, clusterDir, cmdline(p))
		}
	}
	return cmd, clusterDir
}

func TestSigtermStopsAndCleansUp(t *testing.T) {
	sandboxtest.SkipShort(t)
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd, clusterDir := startHelper(t, sandboxtest.Dir(t))
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: helper exited with %v", sig, err)
		}
		// Stop returned before the exit: nothing may be left, without any waiting.
		if survivors := processesMentioning(clusterDir); len(survivors) > 0 {
			t.Fatalf("%v: servers still running after a clean exit: %v", sig, survivors)
		}
		if _, err := os.Stat(clusterDir); !os.IsNotExist(err) {
			t.Fatalf("%v: %s not removed (%v)", sig, clusterDir, err)
		}
	}
}

func TestSigkillLeavesNoServer(t *testing.T) {
	sandboxtest.SkipShort(t)
	t.Parallel()
	dir := sandboxtest.Dir(t)
	cmd, clusterDir := startHelper(t, dir)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// The parent-death signal is asynchronous: wait (bounded) for the kernel to deliver it and for
	// init to reap the servers, then require that nothing running refers to the cluster's directory.
	deadline := time.Now().Add(30 * time.Second)
	for {
		survivors := processesMentioning(clusterDir)
		if len(survivors) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, p := range survivors {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("server processes survived quadrant's SIGKILL: %v", survivors)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The directory the killed process could not remove goes at the next Start in the same parent dir.
	if _, err := os.Stat(clusterDir); err != nil {
		t.Fatalf("expected the killed helper's dir to still exist before cleanup: %v", err)
	}
	c, err := sandbox.Start(ctx(t), sandbox.Options{Name: "after", Dir: dir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if _, err := os.Stat(clusterDir); !os.IsNotExist(err) {
		t.Fatalf("stale dir %s not removed by the next Start (%v)", clusterDir, err)
	}
}

func cmdline(pid string) string {
	b, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// processesMentioning lists live (not zombie) processes whose command line contains s.
func processesMentioning(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if strings.Contains(cmdline(e.Name()), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}
