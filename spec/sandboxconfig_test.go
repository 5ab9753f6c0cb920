package spec

import (
	"os"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/spec/mycnf"
)

// recordedServer answers Options.ServerOptions with MariaDB 10.11's own option list, recorded
// from `mariadbd --verbose --help` (spec/mycnf/testdata), as cmd/quadrant does with the
// installed server.
func recordedServer(t *testing.T) func(flavor, basedir string) (string, []string) {
	t.Helper()
	data, err := os.ReadFile("mycnf/testdata/mariadb-10.11-verbose-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	names := mycnf.ParseHelp(string(data))
	return func(string, string) (string, []string) { return "mariadbd 10.11.19-MariaDB", names }
}

const sandboxPlan = `version: 1
name: t
targets:
  db:
    sandbox:
      config: {bind-addres: 0.0.0.0, port_: 5, max_connections: 50, gen: 1}
iteration:
  server_config: {secure_file_priv: /etc/.., log_bin: /var/tmp/binlogs/mysql-bin, general_log: true}
  workload: {builtin: oltp_read_only, duration: 5s}
`

// With the server's list, names resolve as the server resolves them: bind-addres is
// bind_address (refused), port_ is port_open_timeout (harmless), gen is ambiguous (the server
// refuses to start); an absolute log_bin is not refused but declared as a write outside the
// folder, for the trust check (--allow-path).
func TestSandboxConfigResolvedWithTheServersList(t *testing.T) {
	msg := loadErr(t, sandboxPlan, Options{ServerOptions: recordedServer(t)})
	for _, want := range []string{
		"plan.yaml:6:29: sandbox config of target db: bind-addres is refused: the server reads bind-addres as bind_address",
		"plan.yaml:6:74: sandbox config of target db: gen is refused: gen is a prefix of several options (general_log, general_log_file)",
		"plan.yaml:8:37: server_config of sandbox db: secure_file_priv is refused",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "port_") || strings.Contains(msg, "log_bin") || strings.Contains(msg, "max_connections") || strings.Count(msg, "\n") != 2 {
		t.Errorf("refused more than the three:\n%s", msg)
	}
	ok := strings.NewReplacer("bind-addres: 0.0.0.0, ", "", ", gen: 1", "", "secure_file_priv: /etc/.., ", "").Replace(sandboxPlan)
	p := mustLoad(t, ok, Options{ServerOptions: recordedServer(t)})
	var writes []string
	for _, e := range p.Effects() {
		if e.Kind == WritesFile {
			writes = append(writes, e.Pos.String()+" "+e.What+" "+e.Path)
		}
	}
	if len(writes) != 1 || !strings.Contains(writes[0], "plan.yaml:8:28 server_config of sandbox db log_bin /var/tmp/binlogs/mysql-bin") {
		t.Errorf("effects: %q, want the log_bin write at 8:28", writes)
	}
}
