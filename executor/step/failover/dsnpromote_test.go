package failover_test

import (
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// A drill on the user's own servers, as docs/failover.md's "Own servers" tells it: two
// mariadbd the test starts itself (no sandbox: their own datadirs and ports, the replica
// replicating from the primary), HAProxy in front, and examples/failover-own-servers.yaml run
// with the docs' promote script, examples/failover-promote-haproxy.sh (the plan runs it:
// --allow-shell on the command line). The fault the test gives it cuts the replication link
// (the replica's IO thread stopped) and lets the primary acknowledge 20 more ledger rows
// before its kill -9: those are on the old primary only. The test then starts the old primary
// again on its files and reads the ledger on both servers: quadrant's acknowledged-lost count
// is the ids the old primary has and the new one lacks, but for the commits in flight at the
// kill (committed there, never acknowledged: at most one per ledger writer).
func TestDrillOwnServersBehindHAProxy(t *testing.T) {
	sandboxtest.SkipShort(t)
	for _, bin := range []string{"mariadbd", "mariadb-install-db", "mariadb", "haproxy", "socat"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed: scripts/setup.sh --test installs it (the Debian packages mariadb-server, haproxy, socat)", bin)
		}
	}
	dir := t.TempDir()
	primary := startOwnServer(t, dir, "primary", 1)
	replica := startOwnServer(t, dir, "replica", 2)
	replicate(t, primary, replica)
	front := startHAProxy(t, dir, primary, replica)

	script, err := filepath.Abs("../../../examples/failover-promote-haproxy.sh")
	if err != nil {
		t.Fatal(err)
	}
	fault := filepath.Join(dir, "fault.sh")
	writeFile(t, fault, fmt.Sprintf(`set -e
q() { mariadb --no-defaults --socket="$1" --user=root --batch --skip-column-names -e "$2"; }
# the replication link cut: what the primary acknowledges from now on, the replica never receives
q %[1]s "STOP SLAVE IO_THREAD"
n=$(q %[2]s "SELECT COUNT(*) FROM quadrant_drill.ledger")
until [ "$(q %[2]s "SELECT COUNT(*) FROM quadrant_drill.ledger")" -ge $((n + 20)) ]; do sleep 0.05; done
kill -9 %[3]d
`, replica.socket, primary.socket, primary.cmd.Process.Pid))
	plan, err := os.ReadFile("../../../examples/failover-own-servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := runAllowed(t, string(plan), trust.Allow{Shell: true}, // --allow-shell
		"dsn=bench:bench@tcp("+front+")/",
		"fault=sh "+fault,
		"replica=--no-defaults --socket="+replica.socket+" --user=root",
		"front=--no-defaults --host=127.0.0.1 --port="+front[strings.LastIndex(front, ":")+1:]+" --user=bench --password=bench",
		"haproxy_socket="+filepath.Join(dir, "haproxy.sock"),
		"script="+script,
		"threads=2", "duration=60s", "at=3s", "lead=1s") // time for the promotion on a loaded host
	if it := run.Info.Iterations[0]; it.Status != results.StatusDone {
		t.Fatalf("the drill: %s (%s)", it.Status, it.Error)
	}
	acked, _ := run.Summary.Float(0, "failover_acked")
	lost, ok := run.Summary.Float(0, "failover_acked_lost")
	unavailable, _ := run.Summary.Float(0, "failover_unavailable_s")
	if !ok || acked == 0 || !(unavailable > 0) || lost > acked {
		t.Fatalf("summary: %v acknowledged, %v lost, %vs unavailable", acked, run.Summary.Value(0, "failover_acked_lost"), unavailable)
	}
	// The promote command's output is in log.txt, on success too.
	log, _ := os.ReadFile(filepath.Join(run.Dir, results.LogFile))
	if !strings.Contains(string(log), "promote: the address in front leads to the new primary") {
		t.Errorf("log.txt lacks the promote command's output")
	}
	if strings.Contains(string(log), "still leads to") {
		t.Errorf("log.txt warns that the address did not move, but it did")
	}
	if !strings.Contains(string(log), "the ledger's writers met the fault (their first failed write)") {
		t.Errorf("log.txt does not say when the writers met the fault")
	}

	select {
	case <-primary.done:
	case <-time.After(2 * time.Minute): // a guard against a hang, not a timing
		t.Fatal("the fault's kill -9 left the old primary running")
	}
	primary.start(t, false)
	onOld, onNew := primary.ledger(t), replica.ledger(t)
	var missing int
	for id := range onOld {
		if !onNew[id] {
			missing++
		}
	}
	t.Logf("quadrant: %v acknowledged, %v lost, %.2fs without a write; ledger: %d ids on the old primary, %d on the new, %d missing there",
		acked, lost, unavailable, len(onOld), len(onNew), missing)
	const writers = 2 // the failover step's default: a commit in flight each at the kill
	if lost == 0 || float64(missing) < lost || float64(missing) > lost+writers {
		t.Errorf("quadrant counts %v acknowledged ids lost, the ledgers %d ids on the old primary that the new one lacks; want the same, but for at most %d commits in flight at the kill", lost, missing, writers)
	}
	// failover_acked counts what the old primary acknowledged while the promote command ran,
	// before its fault (the 20 rows above): all it has but the commits in flight at the kill.
	if acked < float64(len(onOld)-writers) {
		t.Errorf("failover_acked %v, but the old primary has %d ids written before the promotion", acked, len(onOld))
	}
}

// ownServer is a mariadbd of the test's own, with its own datadir, socket and port.
type ownServer struct {
	name, dir, socket string
	port, id          int
	cmd               *exec.Cmd
	done              chan struct{} // closed when the process has exited
}

// startOwnServer makes a datadir with mariadb-install-db and starts mariadbd on it, with a
// binary log (the primary's for its replica, the replica's once it is the primary).
func startOwnServer(t *testing.T, dir, name string, id int) *ownServer {
	t.Helper()
	s := &ownServer{name: name, dir: filepath.Join(dir, name), socket: filepath.Join(dir, name+".sock"), port: freePort(t), id: id}
	install := exec.Command("mariadb-install-db", "--no-defaults", "--datadir="+s.dir, "--user="+osUser(t),
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db for %s: %v\n%s", name, err, tail.Lines(string(out), 15))
	}
	s.start(t, true)
	s.exec(t, "SET sql_log_bin = 0",
		"CREATE USER bench@'127.0.0.1' IDENTIFIED BY 'bench'", "GRANT ALL ON *.* TO bench@'127.0.0.1'",
		"CREATE USER repl@'127.0.0.1' IDENTIFIED BY 'repl'", "GRANT REPLICATION SLAVE ON *.* TO repl@'127.0.0.1'")
	return s
}

// start starts mariadbd on the server's datadir and waits until it answers; it is killed
// when the test ends. Started again after a kill (crash recovery) it is only read, through
// its socket: no port that another process may have taken meanwhile.
func (s *ownServer) start(t *testing.T, network bool) {
	t.Helper()
	args := []string{"--no-defaults", "--datadir=" + s.dir, "--socket=" + s.socket, "--skip-name-resolve",
		"--server-id=" + strconv.Itoa(s.id), "--log-bin=binlog", "--log-error=" + s.dir + ".err", "--pid-file=" + s.dir + ".pid",
		"--innodb-buffer-pool-size=32M"}
	if network {
		args = append(args, "--port="+strconv.Itoa(s.port), "--bind-address=127.0.0.1")
	} else {
		args = append(args, "--skip-networking")
	}
	if os.Getuid() == 0 {
		args = append(args, "--user=root") // mariadbd refuses root unless told
	}
	s.cmd = exec.Command("mariadbd", args...)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, cmd := make(chan struct{}), s.cmd
	s.done = done
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	db := s.open(t)
	defer db.Close()
	deadline := time.Now().Add(5 * time.Minute) // a loaded host: no bound but a hang's
	for db.Ping() != nil {
		select {
		case <-done:
			errLog, _ := os.ReadFile(s.dir + ".err")
			t.Fatalf("mariadbd %s exited: %s", s.name, tail.Lines(string(errLog), 15))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd %s does not answer on %s", s.name, s.socket)
		}
	}
}

// open is a pool to the server as root, through its socket, for the caller to close (before
// the server is killed: a pool closed after writes to a dead socket).
func (s *ownServer) open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", "root@unix("+s.socket+")/")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // SET sql_log_bin is the session's
	return db
}

func (s *ownServer) exec(t *testing.T, stmts ...string) {
	t.Helper()
	db := s.open(t)
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %s: %v", s.name, q, err)
		}
	}
}

// ledger is the drill's ids on the server written before the promotion (epoch 0): the
// ones after it are the new primary's own.
func (s *ownServer) ledger(t *testing.T) map[int64]bool {
	t.Helper()
	db := s.open(t)
	defer db.Close()
	rows, err := db.Query("SELECT id FROM quadrant_drill.ledger WHERE epoch = 0")
	if err != nil {
		t.Fatalf("the ledger on %s: %v", s.name, err)
	}
	defer rows.Close()
	ids := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// replicate makes r a read-only replica of p, by GTID.
func replicate(t *testing.T, p, r *ownServer) {
	t.Helper()
	r.exec(t, "SET GLOBAL read_only = ON",
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos", p.port),
		"START SLAVE")
}

// startHAProxy starts HAProxy in front of the two, the replica's server disabled, with its
// runtime API on dir/haproxy.sock, as docs/failover.md shows; it returns the frontend's
// address.
func startHAProxy(t *testing.T, dir string, p, r *ownServer) string {
	t.Helper()
	front := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	sock := filepath.Join(dir, "haproxy.sock")
	cfg := filepath.Join(dir, "haproxy.cfg")
	writeFile(t, cfg, fmt.Sprintf(haproxyConfig, sock, front, p.port, r.port))
	cmd := exec.Command("haproxy", "-db", "-f", cfg)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	for {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
			return front
		}
		select {
		case <-done:
			t.Fatalf("haproxy exited: %s", out)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// haproxyConfig is docs/failover.md's haproxy.cfg: the socket, the frontend, the primary's
// and the replica's ports.
const haproxyConfig = `global
    stats socket %s mode 600 level admin
defaults
    mode tcp
    timeout connect 5s
    timeout client 1h
    timeout server 1h
frontend mariadb
    bind %s
    default_backend mariadb
backend mariadb
    server primary 127.0.0.1:%d
    server replica 127.0.0.1:%d disabled
`

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// osUser is who the servers run as: the test's user (root told so, as mariadbd wants).
func osUser(t *testing.T) string {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
