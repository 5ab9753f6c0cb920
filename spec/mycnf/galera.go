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
// writes ("" for one it names after the sandbox): a config may say the same, not else.
var galeraSet = map[string]string{
	"wsrep_on":                 "on",
	"binlog_format":            "row",
	"innodb_autoinc_lock_mode": "2",
	"wsrep_cluster_name":       "",
	"wsrep_node_name":          "",
	"wsrep_new_cluster":        "",
}

// galeraRefuse says why a Galera node's config may not set opt to v ("" when it may).
func galeraRefuse(opt, v string, bare bool) string {
	want, ok := galeraSet[opt]
	if !ok {
		return ""
	}
	got := strings.ToLower(strings.Trim(v, `"'`))
	if opt == "wsrep_on" && (bare || got == "1" || got == "true") {
		got = "on"
	}
	if want != "" && got == want {
		return ""
	}
	switch opt {
	case "wsrep_cluster_name", "wsrep_node_name":
		return "a Galera sandbox names its cluster and nodes after itself (" + opt + "); leave it out"
	case "wsrep_new_cluster":
		return "a Galera sandbox's node 1 bootstraps the cluster when no other node runs; leave it out"
	}
	return "a Galera sandbox sets " + opt + "=" + strings.ToUpper(want) + " itself (Galera replicates row events with interleaved auto-increment locks, on every node); leave it out"
}
