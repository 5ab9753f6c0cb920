package spec

import (
	"strings"
	"testing"
	"testing/fstest"
)

func overridePlan(target string) string {
	return `version: 1
name: override
targets:
  prod:
` + target + `
iteration:
  workload: {builtin: oltp_read_only, duration: 10s}
`
}

// A --target override keeps none of the plan's settings that would weaken the user's
// connection: an unverified tls: and allow_public_key_retrieval go, with one note per target
// saying how to have them back; a verifying tls: stays; the user's DSN decides with its own
// tls= and allowPublicKeyRetrieval= parameters.
func TestOverrideDropsWeakConnectionSettings(t *testing.T) {
	fsys := fstest.MapFS{"ca.pem": {Data: []byte("-----BEGIN CERTIFICATE-----\n")}}
	load := func(target, dsn string) *Plan {
		t.Helper()
		return mustLoad(t, overridePlan(target), Options{FS: fsys, Targets: map[string]string{"prod": dsn}})
	}
	for _, mode := range []string{"disabled", "preferred", "required"} {
		p := load(`    dsn: "x:y@tcp(colleague:3306)/"
    tls: {mode: `+mode+`}
    allow_public_key_retrieval: true`, "me:pw@tcp(mine:3306)/sbtest")
		tg := p.Targets[0]
		if tg.TLS != nil || tg.AllowPublicKeyRetrieval {
			t.Errorf("mode %s: the override keeps tls: %+v, allow_public_key_retrieval %v", mode, tg.TLS, tg.AllowPublicKeyRetrieval)
		}
		notes := p.OverrideNotes()
		if len(notes) != 1 || !strings.Contains(notes[0], "target prod:") || !strings.Contains(notes[0], "mode "+mode+" does not verify") ||
			!strings.Contains(notes[0], "allowPublicKeyRetrieval=true") || !strings.Contains(notes[0], "tls=skip-verify") {
			t.Errorf("mode %s: notes %q", mode, notes)
		}
		y, err := p.Redacted()
		if err != nil || strings.Contains(string(y), "tls") || strings.Contains(string(y), "allow_public_key_retrieval") {
			t.Errorf("mode %s: plan.yaml keeps them (%v):\n%s", mode, err, y)
		}
	}
	for _, tls := range []string{"{mode: verify-ca, ca: ca.pem}", "{ca: ca.pem}"} {
		p := load(`    dsn: "x:y@tcp(colleague:3306)/"
    tls: `+tls, "me:pw@tcp(mine:3306)/")
		if tg := p.Targets[0]; tg.TLS == nil || !tg.TLS.Verifies() || len(p.OverrideNotes()) != 0 {
			t.Errorf("tls: %s: a verifying tls: is dropped: %+v %q", tls, tg.TLS, p.OverrideNotes())
		}
	}
	p := load(`    dsn: "x:y@tcp(colleague:3306)/"
    tls: {mode: verify-ca, ca: ca.pem}`, "me:pw@tcp(mine:3306)/?tls=preferred&allowPublicKeyRetrieval=true&parseTime=true")
	tg := p.Targets[0]
	if tg.TLS != nil || !tg.AllowPublicKeyRetrieval || tg.DSN != "me:pw@tcp(mine:3306)/?tls=preferred&parseTime=true" {
		t.Errorf("the DSN's own parameters: tls %+v, allow_public_key_retrieval %v, dsn %s", tg.TLS, tg.AllowPublicKeyRetrieval, tg.DSN)
	}
	if n := p.OverrideNotes(); len(n) != 1 || !strings.Contains(n[0], "the DSN's tls= parameter decides") {
		t.Errorf("notes %q", n)
	}
	msg := loadErr(t, overridePlan(`    dsn: "x:y@tcp(colleague:3306)/"`), Options{Targets: map[string]string{"prod": "me@tcp(mine:3306)/?allowPublicKeyRetrieval=yes"}})
	if !strings.Contains(msg, "--target prod") || !strings.Contains(msg, "allowPublicKeyRetrieval=true") {
		t.Errorf("allowPublicKeyRetrieval=yes: %s", msg)
	}
}

// The passwords of --target DSNs are masked wherever the plan's redaction applies, as the
// environment's values are.
func TestOverridePasswordRedacted(t *testing.T) {
	p := mustLoad(t, overridePlan(`    dsn: "x:y@tcp(colleague:3306)/"`), Options{
		Targets: map[string]string{"prod": "me:S3cr3t-pw@tcp(mine:3306)/"}})
	if got := p.Redact("error near 'S3cr3t-pw'"); got != "error near '***'" {
		t.Errorf("Redact: %s", got)
	}
	y, err := p.Redacted()
	if err != nil || strings.Contains(string(y), "S3cr3t-pw") {
		t.Errorf("plan.yaml (%v):\n%s", err, y)
	}
}

// A folder's pid or pid_file names a process of the colleague's machine: pointed at the
// user's server with --target, it would measure whatever process has that pid here.
func TestOverrideDropsTheFoldersProcess(t *testing.T) {
	p := mustLoad(t, overridePlan(`    dsn: "x:y@tcp(colleague:3306)/"
    pid: 1`), Options{Targets: map[string]string{"prod": "me:pw@tcp(mine:3306)/"}})
	if tg := p.Targets[0]; tg.Pid != 0 || tg.PidFile != "" {
		t.Fatalf("the override keeps pid %d, pid_file %q", tg.Pid, tg.PidFile)
	}
	if n := p.OverrideNotes(); len(n) != 1 || !strings.Contains(n[0], "pid: (a process of the plan's machine") {
		t.Errorf("notes %q", n)
	}
}

// A sandbox with replicas cannot become one --target server; the refusal names the way to
// drill one's own primary and replica (a dsn target with promote:).
func TestOverrideRefusesASandboxWithReplicas(t *testing.T) {
	msg := loadErr(t, overridePlan(`    sandbox: {replicas: 1}`), Options{Targets: map[string]string{"prod": "me:pw@tcp(mine:3306)/"}})
	for _, want := range []string{"--target prod", "can only replace a target without replicas", "promote: {shell: YOUR_COMMAND}", "docs/failover.md, \"Own servers\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal lacks %q: %s", want, msg)
		}
	}
}
