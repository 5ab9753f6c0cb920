// Package snmptest runs a real net-snmp agent (snmpd) on a loopback UDP port for tests, without root: a
// private config, persistent directory and pid file in the test's temporary directory.
package snmptest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Credentials of the agent. The v3 users have authPriv access; passwords are at least 8 characters, as
// net-snmp requires.
const (
	Community    = "public"
	User         = "quser" // SHA + AES
	AuthPassword = "authpass1"
	PrivPassword = "privpass1"
	// UserSHA512 uses SHA-512 + AES-256 (same passwords).
	UserSHA512 = "quser512"
	// UserMD5 uses MD5 + DES (same passwords).
	UserMD5 = "quser5"
	// UserSHA256 uses SHA-256 + AES-192 (same passwords).
	UserSHA256 = "quser256"
)

// Agent is a running snmpd. Stop and Start may be called repeatedly (to simulate an agent that goes away and
// comes back on the same address); the test's cleanup stops it.
type Agent struct {
	// Addr is "127.0.0.1:PORT".
	Addr string
	Port int

	t      testing.TB
	dir    string
	bin    string
	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	output *bytes.Buffer
}

// Binary is where snmpd is looked for, besides $PATH.
const Binary = "/usr/sbin/snmpd"

// Start writes a config, starts snmpd on a free loopback port and waits until it answers. Under -short it
// skips the test; otherwise it fails the test (never skips) when snmpd is not installed.
func Start(t testing.TB) *Agent {
	t.Helper()
	if testing.Short() {
		t.Skip("starts snmpd (skipped under -short)")
	}
	bin, err := exec.LookPath("snmpd")
	if err != nil {
		if _, serr := os.Stat(Binary); serr != nil {
			t.Fatalf("snmptest: snmpd not found in $PATH or %s: install the Debian package snmpd", Binary)
		}
		bin = Binary
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "persist"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`rocommunity %s 127.0.0.1
createUser %s SHA "%s" AES "%s"
createUser %s SHA-512 "%s" AES-256 "%s"
createUser %s MD5 "%s" DES "%s"
createUser %s SHA-256 "%s" AES-192 "%s"
rouser %s priv
rouser %s priv
rouser %s priv
rouser %s priv
`, Community, User, AuthPassword, PrivPassword, UserSHA512, AuthPassword, PrivPassword,
		UserMD5, AuthPassword, PrivPassword, UserSHA256, AuthPassword, PrivPassword, User, UserSHA512, UserMD5, UserSHA256)
	if err := os.WriteFile(filepath.Join(dir, "snmpd.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &Agent{t: t, dir: dir, bin: bin, Port: freeUDPPort(t)}
	a.Addr = "127.0.0.1:" + strconv.Itoa(a.Port)
	t.Cleanup(a.Stop)
	a.Start()
	return a
}

// Start (re)starts the agent on its address and waits until it answers.
func (a *Agent) Start() {
	a.t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cmd != nil {
		return
	}
	// -f foreground, -Lo log to stdout, -C only our config, -I -smux no SMUX (needs a TCP port), -p pid file.
	cmd := exec.Command(a.bin, "-f", "-Lo", "-C", "-c", filepath.Join(a.dir, "snmpd.conf"), "-I", "-smux",
		"-p", filepath.Join(a.dir, "snmpd.pid"), "udp:"+a.Addr)
	// createUser lines are turned into usmUser entries in the persistent directory; MIBS= avoids loading MIB
	// files the Debian package does not ship.
	cmd.Env = append(os.Environ(), "SNMP_PERSISTENT_DIR="+filepath.Join(a.dir, "persist"), "MIBS=", "SNMPCONFPATH="+a.dir)
	a.output = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = a.output, a.output
	if err := startOrphanSafe(cmd); err != nil {
		a.t.Fatalf("snmptest: start %s: %v", a.bin, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	a.cmd, a.done = cmd, done
	deadline := time.Now().Add(10 * time.Second)
	for !answers(a.Addr) {
		select {
		case <-done:
			a.cmd = nil
			a.t.Fatalf("snmptest: snmpd exited at start: %s", strings.TrimSpace(a.output.String()))
		default:
		}
		if time.Now().After(deadline) {
			a.stopLocked()
			a.t.Fatalf("snmptest: snmpd on %s did not answer within 10s: %s", a.Addr, strings.TrimSpace(a.output.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the agent (SIGTERM, then SIGKILL after 5 s) and waits for it to exit.
func (a *Agent) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopLocked()
}

func (a *Agent) stopLocked() {
	if a.cmd == nil {
		return
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
	}
	a.cmd = nil
}

// startOrphanSafe starts cmd with the parent-death signal, so that snmpd dies with a test binary that is
// killed before its cleanups run (go test -timeout). Linux sends that signal when the forking *thread* exits,
// so the fork happens on a thread locked for the life of the process.
func startOrphanSafe(cmd *exec.Cmd) error {
	launcher.once.Do(func() {
		launcher.reqs = make(chan *exec.Cmd)
		launcher.errs = make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked
			for c := range launcher.reqs {
				launcher.errs <- c.Start()
			}
		}()
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	launcher.mu.Lock()
	defer launcher.mu.Unlock()
	launcher.reqs <- cmd
	return <-launcher.errs
}

// launcher is the process-wide forking thread (one per test binary by nature).
var launcher struct {
	once sync.Once
	mu   sync.Mutex
	reqs chan *exec.Cmd
	errs chan error
}

// freeUDPPort asks the kernel for a free loopback UDP port. The port is released before snmpd binds it; on a
// loopback-only test machine the window is harmless.
func freeUDPPort(t testing.TB) int {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("snmptest: find a free UDP port: %v", err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// answers sends a v2c GET of sysUpTime.0 and reports whether any response came back. The packet is built by
// hand so the helper depends on nothing but the standard library.
func answers(addr string) bool {
	c, err := net.Dial("udp", addr)
	if err != nil {
		return false
	}
	defer c.Close()
	if _, err := c.Write(getSysUpTime(Community)); err != nil {
		return false
	}
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	buf := make([]byte, 1500)
	n, err := c.Read(buf)
	return err == nil && n > 0 && buf[0] == 0x30
}

// getSysUpTime encodes an SNMPv2c GetRequest for .1.3.6.1.2.1.1.3.0 in BER.
func getSysUpTime(community string) []byte {
	tlv := func(tag byte, body ...[]byte) []byte {
		b := bytes.Join(body, nil)
		return append([]byte{tag, byte(len(b))}, b...)
	}
	oid := []byte{0x2b, 6, 1, 2, 1, 1, 3, 0}
	varbind := tlv(0x30, tlv(0x06, oid), []byte{0x05, 0x00})
	pdu := tlv(0xa0, tlv(0x02, []byte{1}), tlv(0x02, []byte{0}), tlv(0x02, []byte{0}), tlv(0x30, varbind))
	return tlv(0x30, tlv(0x02, []byte{1}), tlv(0x04, []byte(community)), pdu)
}
