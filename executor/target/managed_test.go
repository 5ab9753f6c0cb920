package target

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readVariables(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "variables", file))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, value, _ := strings.Cut(line, "\t")
		vars[name] = value
	}
	return vars
}

// Each provider is told by its own variable; a server one runs oneself, even on a cloud
// machine, is self-hosted.
func TestDetectHosting(t *testing.T) {
	for file, want := range map[string]string{
		"mariadb-10.11-sandbox.tsv": SelfHosted,
		"mysql-8.4-on-ec2.tsv":      SelfHosted,
		"aws-aurora-mysql-3.tsv":    AWSAurora, // its basedir is under /rdsdbbin/ too: Aurora is told first
		"aws-rds-mysql-8.0.tsv":     AWSRDS,
		"aws-rds-mariadb-10.11.tsv": AWSRDS,
		"gcp-cloud-sql-8.0.tsv":     GoogleCloudSQL,
		"azure-flexible-8.0.tsv":    AzureMySQL,
	} {
		h := DetectHosting(readVariables(t, file))
		if h.Provider != want {
			t.Errorf("%s: %s (%s), want %s", file, h.Provider, h.Evidence, want)
		}
		if h.Managed() != (want != SelfHosted) || h.Managed() && (h.Evidence == "" || h.Settings() == "its my.cnf") {
			t.Errorf("%s: managed %v, evidence %q, settings %q", file, h.Managed(), h.Evidence, h.Settings())
		}
	}
}
