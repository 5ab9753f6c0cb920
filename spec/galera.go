package spec

import "fmt"

// NodeName is the target name of node n (2 or more) of a Galera sandbox: node 1 is the
// target itself.
func NodeName(target string, n int) string { return fmt.Sprintf("%s_node%d", target, n) }

// Members are the target names of a sandbox's servers after the target itself: its
// replicas (NAME_replicaN), or its Galera cluster's other nodes (NAME_nodeN); none for a
// dsn target.
func (t Target) Members() []string {
	if t.Sandbox == nil {
		return nil
	}
	var out []string
	for r := 1; r <= t.Sandbox.Replicas; r++ {
		out = append(out, ReplicaName(t.Name, r))
	}
	for n := 2; n <= t.Sandbox.Galera; n++ {
		out = append(out, NodeName(t.Name, n))
	}
	return out
}

// galera refuses what a Galera sandbox cannot be (yet): one with replicas or TLS,
// or a MySQL one.
func (v *validator) galera(t *Target) {
	sb := t.Sandbox
	if sb.Galera == 0 {
		return
	}
	at := sb.Src.At("galera")
	if sb.Replicas > 0 {
		v.errorf(at, "target %s: galera: %d and replicas: %d: a Galera sandbox has nodes (%s, %s, ...), not replicas; keep one of them", t.Name, sb.Galera, sb.Replicas, t.Name, NodeName(t.Name, 2))
	}
	if sb.Flavor == "mysql" {
		v.errorf(at, "target %s: galera needs MariaDB (built with wsrep, with the galera-4 provider); set flavor: mariadb or auto", t.Name)
	}
	if sb.TLS == "on" {
		v.errorf(sb.Src.At("tls"), "target %s: tls: on with galera is not built yet (the nodes' group communication and SST would not be encrypted); remove tls", t.Name)
	}
}
