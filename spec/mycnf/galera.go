package mycnf

import "strings"

// galeraWhy is why a Galera sandbox owns its wsrep options.
const galeraWhy = "a Galera sandbox gives each node its provider, its cluster's addresses and its own ports on 127.0.0.1, and joins it by rsync SST"

// galeraNode are the owned options a Galera sandbox sets to make its nodes one: refused
// with galeraWhy rather than "not a Galera node".
var galeraNode = map[string]bool{
	"wsrep_provider": true, "wsrep_provider_options": true, "wsrep_sst_method": true, "wsrep_cluster_address": true,
	"wsrep_node_address": true, "wsrep_node_incoming_address": true, "wsrep_sst_receive_address": true,
}

// galeraSet are the options a Galera sandbox writes after the config, with the value it
// writes ("" for one it names after the sandbox) and why: a config may say the same, not else.
var galeraSet = map[string]struct{ want, why string }{
	"wsrep_on":                 {"on", "every node replicates through the cluster"},
	"binlog_format":            {"row", "Galera replicates row events only"},
	"innodb_autoinc_lock_mode": {"2", "Galera applies inserts in parallel with interleaved auto-increment locks"},
	"wsrep_cluster_name":       {"", "a Galera sandbox names its cluster after its own directory, so no other cluster's node gets in"},
	"wsrep_node_name":          {"", "a Galera sandbox names each node after its target (NAME, NAME_node2, ...)"},
	"wsrep_new_cluster":        {"", "a Galera sandbox's node 1 bootstraps the cluster when no other node runs"},
}

// galeraRefuse says why a Galera node's config may not set opt to v ("" when it may).
func galeraRefuse(opt, v string, bare bool) string {
	set, ok := galeraSet[opt]
	if !ok {
		return ""
	}
	got := strings.ToLower(strings.Trim(v, `"'`))
	if opt == "wsrep_on" && (bare || got == "1" || got == "true") {
		got = "on"
	}
	switch {
	case set.want != "" && got == set.want:
		return ""
	case set.want == "":
		return set.why + " (" + opt + "); leave it out"
	}
	return "a Galera sandbox sets " + opt + "=" + strings.ToUpper(set.want) + " itself (" + set.why + "); leave it out"
}
