package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
)

// SSTMethod is how a Galera sandbox's joining node gets its first copy of the data (State
// Snapshot Transfer): wsrep_sst_rsync, which runs an rsync daemon as the server's own OS user
// on the joiner's SST port and rsync on the donor, so no root and no account is needed.
const SSTMethod = "rsync"

// galeraProviders are where the Galera 4 provider library is installed: Debian's galera-4
// (/usr/lib/galera/libgalera_smm.so), other distributions' galera-4 packages.
var galeraProviders = []string{
	"/usr/lib/galera/libgalera_smm.so",
	"/usr/lib/galera-4/libgalera_smm.so",
	"/usr/lib64/galera-4/libgalera_smm.so",
	"/usr/lib64/galera/libgalera_smm.so",
	"/usr/lib/libgalera_smm.so",
}

// galeraWait bounds how long a node may take to be Synced once its server answers.
const galeraWait = 2 * time.Minute

// galeraCluster is what a Galera sandbox's nodes share: the cluster's name (unique per
// sandbox, so no other cluster's node is let in), the provider and the nodes in order.
type galeraCluster struct {
	name     string
	provider string
	nodes    []*Server
	// link, if set, puts a link in front of a node's group communication (Options.NodeLink).
	link func(node, listen, upstream string) error
}

// GaleraLinkedHost is the loopback address a Galera node's group communication listens on
// when the nodes are linked (Options.NodeLink); its link listens on 127.0.0.1 with the same
// port. Galera learns its peers' addresses itself: a node accepting a connection records the
// peer as the address the connection comes from with the port the peer says it listens on,
// and tells the others. Through a link, that is 127.0.0.1 (the link dials from there) and
// the peer's port: the peer's link, never its own listener, so every connection between two
// nodes goes through exactly one link (the accepting node's). Linux routes all of
// 127.0.0.0/8 to loopback, so binding 127.0.0.2 needs no setup.
const GaleraLinkedHost = "127.0.0.2"

// gcommHost is where the node's group communication listens.
func (g *galeraNode) gcommHost() string {
	if g.cluster.link != nil {
		return GaleraLinkedHost
	}
	return "127.0.0.1"
}

// galeraNode is one node's place in its cluster and its ports on 127.0.0.1: group
// communication (gcomm), incremental state transfer (IST) and state snapshot transfer (SST).
type galeraNode struct {
	cluster         *galeraCluster
	index           int // 1-based: node 1 bootstraps the cluster
	gcomm, ist, sst int
}

// GaleraPorts are a Galera node's ports on 127.0.0.1 beyond its client port: group
// communication, IST and SST; zeros for a server that is not a Galera node.
func (s *Server) GaleraPorts() (gcomm, ist, sst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.role.galera; g != nil {
		return g.gcomm, g.ist, g.sst
	}
	return 0, 0, 0
}

// Galera is the number of nodes of a Galera cluster (0: the cluster is not one).
func (c *Cluster) Galera() int {
	if c.Primary == nil || c.Primary.role.galera == nil {
		return 0
	}
	return len(c.Primary.role.galera.cluster.nodes)
}

// galeraProvider finds the provider library, or says which package installs it.
func galeraProvider() (string, error) {
	for _, p := range galeraProviders {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("a Galera sandbox needs the Galera 4 provider (libgalera_smm.so), not found in %s: install the galera-4 package (apt-get install galera-4; make demo and make test run scripts/setup.sh, which does)",
		strings.Join(galeraProviders, ", "))
}

// checkGalera says what a Galera sandbox lacks on this machine: a MariaDB server built with
// wsrep, the provider, and what the rsync SST runs.
func checkGalera(ctx context.Context, o Options, bin Binary) (string, error) {
	if o.Replicas > 0 {
		return "", fmt.Errorf("galera: %d with replicas: %d: a Galera sandbox has nodes, not replicas; write one of them", o.Galera, o.Replicas)
	}
	if o.TLS {
		return "", fmt.Errorf("galera with tls: on is not built yet: the nodes' group communication and SST would go unencrypted; leave tls out")
	}
	if o.Via != nil {
		return "", fmt.Errorf("galera with replica links: a Galera sandbox has no replicas; link its nodes (NodeLink)")
	}
	if bin.Flavor != FlavorMariaDB {
		return "", fmt.Errorf("galera: the server is %s; a Galera sandbox needs MariaDB (built with wsrep): set flavor: mariadb", bin.Line)
	}
	if names, err := optionsOf(ctx, bin); err == nil && !contains(names, "wsrep_provider") {
		return "", fmt.Errorf("galera: %s knows no wsrep_provider option: it was built without Galera support", bin.Path)
	}
	provider, err := galeraProvider()
	if err != nil {
		return "", err
	}
	for _, tool := range []string{"rsync", "wsrep_sst_rsync"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("a Galera sandbox's nodes join by rsync SST, which runs %s: not found in PATH; install rsync and mariadb-server (scripts/setup.sh does)", tool)
		}
	}
	return provider, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// startGalera makes o.Galera nodes (NAME, NAME_node2, ...), each with its ports, starts
// node 1 with wsrep-new-cluster and joins the others one at a time (each Synced before
// the next starts), then waits until every node sees them all.
func (c *Cluster) startGalera(ctx context.Context, o Options, provider string, newServer func(string, role) (*Server, error)) error {
	g := &galeraCluster{name: filepath.Base(c.dir), provider: provider, link: o.NodeLink}
	for i := 1; i <= o.Galera; i++ {
		name := o.Name
		if i > 1 {
			name = fmt.Sprintf("%s_node%d", o.Name, i)
		}
		node := &galeraNode{cluster: g, index: i}
		s, err := newServer(name, role{serverID: i, galera: node})
		if err != nil {
			return err
		}
		g.nodes = append(g.nodes, s)
		if err := s.pickGaleraPorts(); err != nil {
			return err
		}
		if i > 1 {
			// A joiner gets node 1's data by SST, accounts and root's password included: it
			// needs no init file, whose statements would run on a node still joining.
			os.Remove(s.initFile)
			s.initFile = ""
		}
	}
	c.Primary, c.Nodes = g.nodes[0], g.nodes[1:]
	o.Logf("sandbox %s: Galera cluster %s of %d nodes, provider %s, SST by %s", o.Name, g.name, o.Galera, provider, SSTMethod)
	for _, s := range g.nodes {
		began := time.Now()
		s.mu.Lock()
		err := s.start(ctx, o.Config, false)
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if err := waitSynced(ctx, s, 0); err != nil {
			return err
		}
		o.Logf("sandbox %s: node %s Synced in %s", o.Name, s.name, time.Since(began).Round(time.Millisecond))
	}
	for _, s := range g.nodes {
		if err := waitSynced(ctx, s, len(g.nodes)); err != nil {
			return err
		}
	}
	return nil
}

// pickGaleraPorts gives node s a client port and its three Galera ports, none of them
// another node's (a free port is found by binding and releasing it, so two picks may
// agree): at its creation, and again when its start found one of them taken. When the
// nodes are linked, the node's link takes its group communication port on 127.0.0.1 at
// once; another process that took the port in between makes it pick again.
func (s *Server) pickGaleraPorts() error {
	g := s.role.galera
	for attempt := 1; ; attempt++ {
		if err := s.pickPorts(); err != nil || g.cluster.link == nil {
			return err
		}
		listen := fmt.Sprintf("127.0.0.1:%d", g.gcomm)
		err := g.cluster.link(s.name, listen, fmt.Sprintf("%s:%d", GaleraLinkedHost, g.gcomm))
		if err == nil {
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("%s: link in front of its group communication on %s: %w", s.name, listen, err)
		}
	}
}

// pickPorts picks node s's four ports.
func (s *Server) pickPorts() error {
	taken := map[int]bool{}
	for _, n := range s.role.galera.cluster.nodes {
		if n != s {
			g := n.role.galera
			taken[n.port], taken[g.gcomm], taken[g.ist], taken[g.sst] = true, true, true, true
		}
	}
	var ports [4]int
	for i := range ports {
		for {
			p, err := s.ports()
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if !taken[p] {
				taken[p] = true
				ports[i] = p
				break
			}
		}
	}
	s.port = ports[0]
	g := s.role.galera
	g.gcomm, g.ist, g.sst = ports[1], ports[2], ports[3]
	return nil
}

// galeraOptions are a node's wsrep settings, after the config so they win: its provider,
// cluster and ports on 127.0.0.1 (its group communication on GaleraLinkedHost when linked:
// the peers it names are then their links), the rsync SST, and what Galera requires of the server
// (row-based binary log events, interleaved auto-increment locks). Node 1 bootstraps a new
// cluster when it starts while no other node runs (the cluster's first start, or every node
// stopped, node 1 last, as Stop does); otherwise a node joins the others.
func (s *Server) galeraOptions() []Option {
	g := s.role.galera
	var peers []string
	for _, n := range g.cluster.nodes {
		peers = append(peers, fmt.Sprintf("127.0.0.1:%d", n.role.galera.gcomm))
	}
	opts := []Option{
		{Name: "server_id", Value: strconv.Itoa(s.role.serverID)},
		{Name: "binlog_format", Value: "ROW"},
		{Name: "innodb_autoinc_lock_mode", Value: "2"},
		{Name: "wsrep_on", Value: "ON"},
		{Name: "wsrep_provider", Value: g.cluster.provider},
		{Name: "wsrep_cluster_name", Value: g.cluster.name},
		{Name: "wsrep_cluster_address", Value: "gcomm://" + strings.Join(peers, ",")},
		{Name: "wsrep_node_name", Value: s.name},
		{Name: "wsrep_node_address", Value: fmt.Sprintf("127.0.0.1:%d", g.gcomm)},
		{Name: "wsrep_node_incoming_address", Value: fmt.Sprintf("127.0.0.1:%d", s.port)},
		{Name: "wsrep_sst_method", Value: SSTMethod},
		{Name: "wsrep_sst_receive_address", Value: fmt.Sprintf("127.0.0.1:%d", g.sst)},
		{Name: "wsrep_provider_options", Value: fmt.Sprintf("gmcast.listen_addr=tcp://%s:%d; ist.recv_addr=127.0.0.1:%d", g.gcommHost(), g.gcomm, g.ist)},
	}
	if g.index == 1 && !g.cluster.othersRunning(s) {
		opts = append(opts, Option{Name: "wsrep-new-cluster", Bare: true})
	}
	return opts
}

// othersRunning says a node of the cluster other than s runs.
func (g *galeraCluster) othersRunning(s *Server) bool {
	for _, n := range g.nodes {
		if n != s && n.Running() {
			return true
		}
	}
	return false
}

// waitSynced waits until node s is Synced and ready (wsrep_local_state_comment, wsrep_ready)
// and, when size > 0, counts size nodes in its Primary component.
func waitSynced(ctx context.Context, s *Server, size int) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	var last map[string]string
	deadline := time.Now().Add(galeraWait)
	for {
		rows, err := queryMaps(ctx, db, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment','wsrep_ready','wsrep_cluster_size','wsrep_cluster_status')")
		if err == nil {
			last = map[string]string{}
			for _, r := range rows {
				last[strings.ToLower(r["Variable_name"])] = r["Value"]
			}
			n, _ := strconv.Atoi(last["wsrep_cluster_size"])
			if last["wsrep_local_state_comment"] == "Synced" && last["wsrep_ready"] == "ON" && last["wsrep_cluster_status"] == "Primary" && (size == 0 || n == size) {
				return nil
			}
		}
		if time.Now().After(deadline) {
			want := "a Synced node"
			if size > 0 {
				want = fmt.Sprintf("a Synced node of a cluster of %d", size)
			}
			return fmt.Errorf("%s: not %s after %s (state %q, ready %q, cluster %q of %q nodes; last error %v); error log:\n%s",
				s.name, want, galeraWait, last["wsrep_local_state_comment"], last["wsrep_ready"], last["wsrep_cluster_status"], last["wsrep_cluster_size"], err, s.ErrorLogTail(15))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitSynced waits until the Galera node s is Synced and ready in a Primary component of
// size nodes (0: of any size), at most two minutes: a node started again, reconnected or
// resumed has rejoined its cluster then.
func (s *Server) WaitSynced(ctx context.Context, size int) error { return waitSynced(ctx, s, size) }

// ErrorLogSize is the size of the server's error log now: what it writes from here on is
// ErrorLogSince(size).
func (s *Server) ErrorLogSize() int64 {
	st, err := os.Stat(s.errorLog())
	if err != nil {
		return 0
	}
	return st.Size()
}

// ErrorLogSince is what the server wrote to its error log from offset on (ErrorLogSize).
func (s *Server) ErrorLogSince(offset int64) string { return s.logSince(offset) }

// StateTransfer says how a Galera node that rejoined got the writes it missed, from the
// error logs its cluster's nodes wrote since offsets (ErrorLogSize of each, by node, before
// it rejoined), and the log line that says so: "SST" when a donor copied its data over
// (wsrep_sst_rsync run as donor), "IST" when a donor sent only the writesets it missed (the
// script run with --bypass, or the joiner's "IST received" without a donor's script), ""
// when the logs say neither (a node that never left its cluster). why says which log said it.
func (c *Cluster) StateTransfer(joiner *Server, offsets map[*Server]int64) (how, why string) {
	for _, n := range c.Servers() {
		if n == joiner {
			continue
		}
		for _, l := range strings.Split(n.logSince(offsets[n]), "\n") {
			if strings.Contains(l, "--role 'donor'") {
				if strings.Contains(l, "--bypass") {
					return "IST", n.name + "'s error log: wsrep_sst_rsync run as donor with --bypass (the writesets missed only)"
				}
				return "SST", n.name + "'s error log: wsrep_sst_rsync run as donor (a copy of its data directory)"
			}
		}
	}
	for _, l := range strings.Split(joiner.logSince(offsets[joiner]), "\n") {
		if i := strings.Index(l, "IST received"); i >= 0 {
			return "IST", joiner.name + "'s error log: " + strings.TrimSpace(l[i:])
		}
	}
	return "", ""
}

// galeraStartPosition is the position a Galera node that was killed recovers from its
// storage before it starts, as the galera_recovery script of MariaDB's systemd unit does
// (mariadbd --wsrep-recover): a crash leaves seqno -1 in its grastate.dat, and a node that
// starts so knows no position, so it asks for a full copy of a donor's data (SST). Given as
// --wsrep_start_position, it asks only for the writesets it missed (IST) when a donor still
// has them. "" when the node saved its position (a clean stop), has none yet (its first
// start) or recovery found none (the log says so; the node then joins by SST).
func (s *Server) galeraStartPosition(ctx context.Context) string {
	state, err := os.ReadFile(filepath.Join(s.dir, "data", "grastate.dat"))
	if err != nil || !regexp.MustCompile(`(?m)^seqno:\s*-1\s*$`).Match(state) {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, s.bin.Path, "--defaults-file="+s.cnfPath(), "--wsrep-recover", "--disable-log-error")
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.acct.credential()}
	err = startProcess(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	m := regexp.MustCompile(`WSREP: Recovered position: ([0-9a-f-]{36}:\d+)`).FindStringSubmatch(out.String())
	if m == nil {
		s.logf("sandbox: %s: no position recovered from its storage after a crash (mariadbd --wsrep-recover: %v): it rejoins by a full copy (SST); its output:\n%s", s.name, err, tail.Lines(s.redact(out.String()), 10))
		return ""
	}
	s.logf("sandbox: %s: position %s recovered from its storage after a crash (mariadbd --wsrep-recover), given as wsrep_start_position", s.name, m[1])
	return m[1]
}
