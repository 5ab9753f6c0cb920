package failover_test

import "testing"

// validate refuses, at the key's position, a link fault that does nothing, contradicts
// itself, does not parse or does not fit the lead.
func TestCheckLinkFault(t *testing.T) {
	for _, tc := range []struct{ targets, step, want string }{
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {cut: true, before: 3s}}", ""},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {delay: 50ms, bandwidth: 1Mbit, before: 5s}}", ""},
		{"db: {sandbox: {replicas: 1}}", "{fault: partition_replicas}", ""},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {rtt: 20ms, jitter: 2ms, before: 1s}}", ""},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {bandwidth: 1 furlong, before: 3s}}", `plan.yaml:11:46: link.bandwidth "1 furlong": unknown unit "furlong"`},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {before: 3s}}", "plan.yaml:11:34: link does nothing: give cut: true, or a delay"},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {cut: true, delay: 5ms, before: 3s}}", "plan.yaml:11:34: link: cut: true holds every byte"},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {delay: 5ms, rtt: 10ms, before: 3s}}", "plan.yaml:11:52: link: give delay (one way) or rtt"},
		{"db: {sandbox: {replicas: 1}}", "{link: {cut: true, before: 3s}}", "plan.yaml:11:44: link.before 3s is longer than the drill's lead 2s"},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {cut: true}}", `plan.yaml:11:34: missing required key "before" in link`},
		{"db: {sandbox: {replicas: 1}}", "{lead: 5s, link: {cut: true, before: 0s}}", "plan.yaml:11:54: link.before must be more than 0"},
		{"db: {dsn: 'u:p@tcp(127.0.0.1:3306)/'}", "{lead: 5s, link: {cut: true, before: 3s}, promote: {shell: ./p.sh}}", "plan.yaml:11:34: link applies to sandbox targets only"},
		{"db: {sandbox: {replicas: 1}}", "{fault: isolate}", "plan.yaml:11:25: fault must be one of"},
	} {
		_, err := loadDrill(tc.targets, tc.step)
		wantErr(t, tc.step, tc.want, err)
	}
}
