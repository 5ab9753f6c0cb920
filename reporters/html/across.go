package html

import (
	_ "embed"
	"io"

	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// across.js draws each effect across several folders of one plan.
//
//go:embed assets/across.js
var acrossJS string

// acrossData is the page of `quadrant report A B C --out FILE`: the folders, then each
// effect with each folder's change and 95% CI.
type acrossData struct {
	Plan    string         `json:"plan"`
	Folders []string       `json:"folders"`
	Effects []acrossEffect `json:"effects"`
}

type acrossEffect struct {
	Effect string                `json:"effect"`
	Metric string                `json:"metric"`
	Points []results.EffectRange `json:"points"` // one per folder, nulls where it has none
}

// RenderAcross writes the page of each effect runs state, across them.
func RenderAcross(w io.Writer, plan string, runs []*results.Run, series []reproduce.Series, version string) error {
	d := acrossData{Plan: plan}
	for _, r := range runs {
		d.Folders = append(d.Folders, reproduce.Point{Run: r}.Label())
	}
	for _, s := range series {
		e := acrossEffect{Effect: s.Where(), Metric: s.Metric}
		for _, p := range s.Points {
			e.Points = append(e.Points, rangeJSON(p.Side.Change, p.Side.Lo, p.Side.Hi))
		}
		d.Effects = append(d.Effects, e)
	}
	return renderCheckData(w, "quadrant: effects of "+plan+" across folders", version, map[string]any{"across": d})
}

// WriteAcross renders the page to path.
func WriteAcross(path, plan string, runs []*results.Run, series []reproduce.Series, version string) error {
	return writeFile(path, func(w io.Writer) error { return RenderAcross(w, plan, runs, series, version) })
}
