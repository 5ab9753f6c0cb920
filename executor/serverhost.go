package executor

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/fsinfo"
	"github.com/quadrant-bench/quadrant/executor/internal/hostinfo"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/watch/procwatch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// clientHost describes the machine quadrant runs on, for run.json; what could not be read
// is left empty and said in the log.
func clientHost(logf func(string, ...any)) *results.HostInfo {
	name, _ := os.Hostname()
	h, errs := hostinfo.Read("/", "client", name)
	for _, err := range errs {
		logf("note: this machine's %v (run.json's client_host leaves it out)", err)
	}
	return &h
}

// hostLoad is this machine's load average now, nil when /proc/loadavg cannot be read.
func hostLoad() *results.LoadAverage {
	l, err := hostinfo.LoadAverage("/")
	if err != nil {
		return nil
	}
	return &l
}

// serverHost says which machine target s's server runs on, where quadrant can see it:
// a sandbox runs here; a dsn target's server is here when onThisHost proves it. Otherwise
// nil and why not.
func (f *fleet) serverHost(ctx context.Context, s *liveTarget, vars map[string]string, client *results.HostInfo) (*results.HostInfo, string) {
	if s.sb != nil {
		if client == nil {
			return nil, "this machine could not be described"
		}
		h := *client
		h.Source, h.Evidence = "sandbox", "a sandbox runs on the machine quadrant runs on"
		return &h, ""
	}
	if t := f.planTarget(s.Name()); t != nil && t.SNMP != nil {
		return nil, "its host's SNMP agent (" + t.SNMP.Address + ") was not asked yet" // collect.Watchers.SNMPMachines fills it in
	}
	if s.hosting.Managed() {
		return nil, "a managed server (" + s.hosting.Name() + "): its host is the provider's"
	}
	evidence, why := f.onThisHost(ctx, s, vars)
	if why != "" {
		return nil, why
	}
	if client == nil {
		return nil, "this machine could not be described"
	}
	h := *client
	h.Source, h.Evidence = "local", evidence
	return &h, ""
}

// onThisHost is the rule by which a dsn target's server is taken to run on this machine,
// every part of it needed: the address is a loopback one or a unix socket (or the plan names
// the server's pid or pid_file); the server's hostname variable is this machine's hostname
// (a container or a tunnel has another); its process (the plan's pid, pid_file, else the
// server's own pid_file read here) is a mysqld or mariadbd on this machine; and that process
// is the server: its working directory is the datadir (mysqld works in it) when /proc lets
// us read it, else it started when the server's Uptime says it did (±5 s). A datadir path
// that merely exists here proves nothing, and is not asked. It returns how it knew, or why not.
func (f *fleet) onThisHost(ctx context.Context, s *liveTarget, vars map[string]string) (evidence, why string) {
	t := f.planTarget(s.Name())
	host := s.Host()
	loopback := host == "localhost" || host == "::1" || strings.HasPrefix(host, "127.") || strings.HasPrefix(s.Config().Net, "unix")
	named := t != nil && !f.isReplica(s.Name()) && (t.Pid > 0 || t.PidFile != "")
	if !loopback && !named {
		return "", fmt.Sprintf("the server is reached at %s, not on a loopback address or a unix socket of this machine", host)
	}
	me, _ := os.Hostname()
	if hn := vars["hostname"]; hn == "" || hn != me {
		return "", fmt.Sprintf("its hostname is %q, not this machine's %q (a container, a VM or a tunnel)", hn, me)
	}
	pid, from, err := serverPid(t, named, vars)
	if err != nil {
		return "", err.Error()
	}
	comm, err := procwatch.Comm("/proc", pid)
	if err != nil || !strings.Contains(comm, "mysqld") && !strings.Contains(comm, "mariadbd") {
		return "", fmt.Sprintf("%s names process %d, which is not a mysqld or mariadbd on this machine", from, pid)
	}
	how := fmt.Sprintf("hostname %s is this machine's; %s names process %d (%s)", me, from, pid, comm)
	datadir := filepath.Clean(vars["datadir"])
	if cwd, err := filepath.EvalSymlinks(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
		if real, err := filepath.EvalSymlinks(datadir); err != nil || real != cwd {
			return "", fmt.Sprintf("process %d works in %s, not in the server's datadir %s: another server", pid, cwd, datadir)
		}
		return how + ", whose working directory is the datadir", ""
	}
	age, err := processAge("/proc", pid, time.Now())
	if err != nil {
		return "", fmt.Sprintf("process %d: %v", pid, err)
	}
	up, err := uptime(ctx, s)
	if err != nil {
		return "", err.Error()
	}
	if math.Abs(age-up) > 5 {
		return "", fmt.Sprintf("process %d started %.0f s ago, the server %.0f s ago: another server", pid, age, up)
	}
	return how + fmt.Sprintf(", which started when the server did (%.0f s ago)", up), ""
}

// serverPid is the process of a dsn target's server: the plan's pid or pid_file (named),
// else the pid_file the server says it writes.
func serverPid(t *spec.Target, named bool, vars map[string]string) (int, string, error) {
	switch {
	case named && t.Pid > 0:
		return t.Pid, fmt.Sprintf("the plan's pid %d", t.Pid), nil
	case named:
		pid, err := procwatch.ReadPidFile(t.PidFile)
		return pid, "the plan's pid_file " + t.PidFile, err
	}
	file := vars["pid_file"]
	if file == "" || !filepath.IsAbs(file) {
		return 0, "", fmt.Errorf("the server names no pid_file (%q) to find its process by", file)
	}
	pid, err := procwatch.ReadPidFile(file)
	if err != nil {
		return 0, "", fmt.Errorf("its pid_file is not readable here: %v", err)
	}
	return pid, "its pid_file " + file, nil
}

// processAge is how long ago process pid started, from its start time in /proc/PID/stat
// (clock ticks since boot, at Linux's USER_HZ of 100) and the boot time in /proc/stat.
func processAge(root string, pid int, now time.Time) (float64, error) {
	b, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	rest := string(b)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:] // the command name may hold spaces
	}
	f := strings.Fields(rest)
	if len(f) < 20 {
		return 0, fmt.Errorf("%s/%d/stat: too short", root, pid)
	}
	ticks, err := strconv.ParseFloat(f[19], 64) // field 22, starttime; f[0] is field 3
	if err != nil {
		return 0, fmt.Errorf("%s/%d/stat: starttime: %w", root, pid, err)
	}
	st, err := os.ReadFile(filepath.Join(root, "stat"))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				break
			}
			return now.Sub(time.Unix(boot, 0)).Seconds() - ticks/100, nil
		}
	}
	return 0, fmt.Errorf("%s/stat has no btime", root)
}

// uptime is the server's Uptime status, in seconds.
func uptime(ctx context.Context, s *liveTarget) (float64, error) {
	var name, v string
	if err := s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &v); err != nil {
		return 0, fmt.Errorf("its Uptime: %w", err)
	}
	return strconv.ParseFloat(v, 64)
}

// serverStorage is where a server's datadir and binary log are (the filesystems of its
// datadir and of log_bin_basename's directory), for an iteration's storage.
func serverStorage(name, datadir string, vars map[string]string, logf func(string, ...any)) results.Storage {
	st := results.Storage{Target: name, DataDir: datadir}
	if fi, err := fsinfo.Of(datadir); err != nil {
		logf("warning: filesystem of %s's datadir %s: %v", name, datadir, err)
	} else {
		st.Filesystem, st.Device, st.Mount, st.FreeBytes = fi.Type, fi.Device, fi.Mount, fi.FreeBytes
	}
	if base := vars["log_bin_basename"]; strings.EqualFold(vars["log_bin"], "ON") && filepath.IsAbs(base) {
		bl := &results.PathStorage{Path: filepath.Dir(base)}
		if fi, err := fsinfo.Of(bl.Path); err != nil {
			logf("warning: filesystem of %s's binary log %s: %v", name, bl.Path, err)
		} else {
			bl.Filesystem, bl.Device, bl.Mount = fi.Type, fi.Device, fi.Mount
		}
		st.Binlog = bl
	}
	return st
}

// storage completes an iteration's storage once its servers run with its settings (a
// server_config may turn the binary log on): each sandbox's binary log, and the datadir and
// binary log of each dsn target whose server runs on this machine.
func (f *fleet) storage(ctx context.Context, index int, placed []results.Storage) []results.Storage {
	logf := func(format string, args ...any) {
		f.log.logf("iteration %d: "+format, append([]any{index}, args...)...)
	}
	out := append([]results.Storage(nil), placed...)
	for i := range out {
		s := f.targets[out[i].Target]
		if s == nil {
			continue
		}
		vars, err := target.Variables(ctx, s.db)
		if err != nil {
			logf("warning: %s: the binary log's filesystem: %v", s.Name(), err)
			continue
		}
		out[i].Binlog = serverStorage(s.Name(), out[i].DataDir, vars, logf).Binlog
	}
	for _, name := range f.order {
		s := f.targets[name]
		if s == nil || !s.local {
			continue
		}
		vars, err := target.Variables(ctx, s.db)
		if err != nil {
			logf("warning: %s: its storage: %v", name, err)
			continue
		}
		out = append(out, serverStorage(name, filepath.Clean(vars["datadir"]), vars, logf))
	}
	return out
}
