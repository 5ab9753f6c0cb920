package spec

import "fmt"

// The servers' default max_allowed_packet: MariaDB 10.11's 16 MiB and MySQL 8.0/8.4's
// 64 MiB (their manuals). A statement larger is refused by the server, after it was read
// whole and sent.
const (
	MariaDBMaxAllowedPacket = 16 << 20
	MySQLMaxAllowedPacket   = 64 << 20
)

// Inspect runs the step kinds' checks of what the files their steps name say
// (StepKind.Inspect), in registration order: validate and explain do before a run.
func (p *Plan) Inspect() []error {
	byKind := map[*StepKind][]PlacedStep{}
	var kinds []*StepKind
	for ps := range p.Steps() {
		k := ps.Step.Kind
		if k == nil || k.Inspect == nil {
			continue
		}
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], ps)
	}
	var out []error
	for _, k := range kinds {
		out = append(out, k.Inspect(p, byKind[k])...)
	}
	return out
}

// PacketLimit is target name's max_allowed_packet when it is a sandbox, and where it
// comes from; 0 for a dsn target.
func (p *Plan) PacketLimit(name string) (int64, string) {
	for _, t := range p.Targets {
		if t.Name != name || t.Sandbox == nil {
			continue
		}
		if v, ok := t.Sandbox.Config.Lookup("max_allowed_packet"); ok {
			if n, ok := ParseSize(fmt.Sprint(v)); ok {
				return n, fmt.Sprintf("sandbox %s's config sets max_allowed_packet %s: raise it there, or split the statement", name, fmt.Sprint(v))
			}
		}
		if t.Sandbox.Flavor == "mysql" {
			return MySQLMaxAllowedPacket, fmt.Sprintf("that is MySQL's default: set max_allowed_packet in sandbox %s's config (e.g. max_allowed_packet: 256M), or split the statement", name)
		}
		return MariaDBMaxAllowedPacket, fmt.Sprintf("that is MariaDB's default: set max_allowed_packet in sandbox %s's config (e.g. max_allowed_packet: 256M), or split the statement", name)
	}
	return 0, ""
}
