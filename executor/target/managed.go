package target

import (
	"sort"
	"strings"
)

// Hostings: who runs a server.
const (
	SelfHosted     = "self-hosted"
	AWSAurora      = "aws-aurora"
	AWSRDS         = "aws-rds"
	GoogleCloudSQL = "gcp-cloud-sql"
	AzureMySQL     = "azure-mysql"
)

// Hosting is who runs a server, and the variable that told.
type Hosting struct {
	Provider string // SelfHosted, AWSAurora, ...
	Evidence string // the variable and its value that told, e.g. "aurora_version=3.05.2"
}

// Managed reports whether the server is a provider's: no shell, no restart, no SUPER, no
// host to read /proc or SNMP from, and settings only through the provider.
func (h Hosting) Managed() bool { return h.Provider != "" && h.Provider != SelfHosted }

// Name is the provider as people call it.
func (h Hosting) Name() string {
	switch h.Provider {
	case AWSAurora:
		return "Amazon Aurora"
	case AWSRDS:
		return "Amazon RDS"
	case GoogleCloudSQL:
		return "Google Cloud SQL"
	case AzureMySQL:
		return "Azure Database for MySQL"
	}
	return h.Provider
}

// Settings is where the provider takes the server's settings (what my.cnf and a restart do on
// one's own server).
func (h Hosting) Settings() string {
	switch h.Provider {
	case AWSAurora:
		return "its DB cluster parameter group or DB parameter group (aws rds modify-db-cluster-parameter-group), then a reboot from the console or CLI"
	case AWSRDS:
		return "its DB parameter group (aws rds modify-db-parameter-group), then a reboot from the console or CLI"
	case GoogleCloudSQL:
		return "its database flags (gcloud sql instances patch --database-flags)"
	case AzureMySQL:
		return "its server parameters (az mysql flexible-server parameter set)"
	}
	return "its my.cnf"
}

// DetectHosting tells a managed server from SHOW GLOBAL VARIABLES. Each rule is a variable
// only that provider's servers have (docs/servers.md gives the sources):
//
//   - aurora_version: Amazon Aurora MySQL (AWS: "Checking Aurora MySQL versions using SQL").
//   - basedir under /rdsdbbin/: Amazon RDS for MySQL and MariaDB, whose binaries live there.
//   - a cloudsql_* variable (cloudsql_iam_authentication, ...): Google Cloud SQL's own flags,
//     which its servers carry as system variables.
//   - aad_auth_only: Azure Database for MySQL flexible server's Microsoft Entra setting.
//
// @@hostname and version_comment are not used: an EC2 or GCE machine one runs oneself has the
// same ip-10-... hostname, and the providers ship the community version_comment.
func DetectHosting(vars map[string]string) Hosting {
	if v, ok := vars["aurora_version"]; ok {
		return Hosting{Provider: AWSAurora, Evidence: "aurora_version=" + v}
	}
	if b := vars["basedir"]; strings.HasPrefix(b, "/rdsdbbin/") {
		return Hosting{Provider: AWSRDS, Evidence: "basedir=" + b}
	}
	var names []string
	for n := range vars {
		if strings.HasPrefix(n, "cloudsql_") {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		sort.Strings(names)
		return Hosting{Provider: GoogleCloudSQL, Evidence: names[0] + "=" + vars[names[0]]}
	}
	if v, ok := vars["aad_auth_only"]; ok {
		return Hosting{Provider: AzureMySQL, Evidence: "aad_auth_only=" + v}
	}
	return Hosting{Provider: SelfHosted}
}
