package spec

import "strings"

// Verify is a `verify:` step: the captured reads of a traffic file run on two targets or more
// and compared with the first, as `quadrant verify` does (see docs/verify.md), so that an
// upgrade check is a plan that can be shared and run again. Spec only reads and checks it;
// executor/verify runs it.
type Verify struct {
	Src     Source   `yaml:"-"`
	Traffic string   `yaml:"traffic,required" doc:"The captured traffic, relative to the plan: a slow log, a general log, a capture file (.qcap, e.g. one a capture: step of the plan writes) or a SQL file."`
	Format  string   `yaml:"format" default:"auto" enum:"auto,sql,slowlog,general,qcap" doc:"The traffic's format; auto detects it from the content."`
	Targets []string `yaml:"targets" doc:"The plan targets the reads run on; the first is the base every other is compared with (default: every target, in plan order)."`
	Sample  int      `yaml:"sample" default:"20" min:"1" doc:"Statements run per fingerprint (at most), drawn at random with seed."`
	Seed    int64    `yaml:"seed" default:"1" doc:"The seed of the sample: the same seed and traffic run the same statements."`
	Repeat  int      `yaml:"repeat" default:"50" min:"0" doc:"Timed runs of each fingerprint on each target, interleaved between them, for the latency verdict (fewer for a statement of seconds); 0 times nothing. As quadrant verify --repeat."`
	// MinChange is in percent.
	MinChange float64 `yaml:"min_change" default:"10" min:"0" doc:"The least change of a fingerprint's mean latency, in percent, called faster or slower (its 95% interval must leave out 0 too). As --min-change."`
	Writes    bool    `yaml:"writes" doc:"Run the captured writes too, in captured order on every target, after the reads (for throwaway copies or sandboxes: they change the data). As --writes."`

	// TrafficPath is Traffic resolved against the plan's directory.
	TrafficPath string `yaml:"-"`
}

// VerifyTargets are the targets verify step vf runs on, in order: its targets:, else every
// target of p in plan order.
func (p *Plan) VerifyTargets(vf *Verify) []string {
	if len(vf.Targets) > 0 {
		return vf.Targets
	}
	out := make([]string, 0, len(p.Targets))
	for _, t := range p.Targets {
		out = append(out, t.Name)
	}
	return out
}

func (vf *Verify) validate(v *validator, s *Step) {
	if p := v.output(vf.Traffic); p != "" && v.captured(p) {
		vf.TrafficPath = p
	} else {
		vf.TrafficPath = v.path(vf.Traffic, vf.Src.At("traffic"), "verify traffic")
	}
	if vf.Repeat == 1 {
		v.errorf(vf.Src.At("repeat"), "verify.repeat is 1: one run says nothing of the noise; give 2 or more, or 0 to time nothing")
	}
	seen := map[string]bool{}
	for _, name := range vf.Targets {
		if seen[name] {
			v.errorf(vf.Src.At("targets"), "verify.targets names %s twice; name each target once (the first is the base)", name)
		}
		seen[name] = true
		v.checkTarget(name, vf.Src.At("targets"), "verify.targets")
	}
	if names := v.p.VerifyTargets(vf); len(names) < 2 {
		at := vf.Src.Pos
		if vf.Src.Has("targets") {
			at = vf.Src.At("targets")
		}
		v.errorf(at, "verify needs two targets or more (it has %s): the first is the base, the others are compared with it; add a target to the plan or to verify.targets", orNothing(names))
	}
}

func orNothing(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
