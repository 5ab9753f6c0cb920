package spec

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Matrix is the `matrix:` section: axes in written order, plus exclude/include cells.
type Matrix struct {
	Axes    []Axis
	Exclude [][]AxisValue
	Include [][]AxisValue
	Pos     Pos
}

// Axis is one matrix dimension.
type Axis struct {
	Name   string
	Values []any
	Pos    Pos
}

func (m *Matrix) decodeNode(d *decoder, n *yaml.Node, name string) {
	if isNull(n) {
		return
	}
	m.Pos = d.t.pos(n)
	if n.Kind != yaml.MappingNode {
		d.errs.add(d.t.pos(n), "matrix must be a mapping of AXIS: [values...], got %s", describeNode(n))
		return
	}
	var extra []*yaml.Node // exclude/include, read once the axes are known
	content := d.pairs(n)
	for i := 0; i+1 < len(content); i += 2 {
		k, v := content[i], d.alias(content[i+1])
		if v == nil {
			continue
		}
		if k.Value == "exclude" || k.Value == "include" {
			extra = append(extra, k, v)
			continue
		}
		if !matchPattern(identPattern, k.Value) {
			d.errs.add(d.t.pos(k), "invalid matrix axis name %q: %s", k.Value, patternHelp(identPattern))
		}
		ax := Axis{Name: k.Value, Pos: d.t.pos(k)}
		items, ok := d.list(v, "matrix axis "+k.Value)
		if !ok {
			continue
		}
		if len(items) == 0 {
			d.errs.add(d.t.pos(v), "matrix axis %q is empty; give it at least one value or remove it", k.Value)
			continue
		}
		for _, it := range items {
			val, ok := d.generic(it, k.Value)
			if ok {
				ax.Values = append(ax.Values, val)
			}
		}
		m.Axes = append(m.Axes, ax)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		k, v := extra[i], extra[i+1]
		cells := m.cells(d, v, k.Value)
		if k.Value == "exclude" {
			m.Exclude = cells
		} else {
			m.Include = cells
		}
	}
}

// cells reads a list of {AXIS: VALUE} maps (exclude or include).
func (m *Matrix) cells(d *decoder, n *yaml.Node, what string) [][]AxisValue {
	if isNull(n) {
		return nil
	}
	items, ok := d.list(n, "matrix "+what)
	if !ok {
		return nil
	}
	var out [][]AxisValue
	for _, it := range items {
		it = resolveAlias(it)
		if it.Kind != yaml.MappingNode {
			d.errs.add(d.t.pos(it), "each %s entry must be a mapping {AXIS: VALUE, ...}, got %s", what, describeNode(it))
			continue
		}
		var cell []AxisValue
		for i := 0; i+1 < len(it.Content); i += 2 {
			k := it.Content[i]
			if m.axis(k.Value) == nil && what == "exclude" || what == "include" && len(m.Axes) > 0 && m.axis(k.Value) == nil {
				msg := fmt.Sprintf("%s names unknown matrix axis %q", what, k.Value)
				if sg := suggest(k.Value, m.axisNames()); sg != "" {
					msg += sg
				} else {
					msg += "; axes: " + strings.Join(m.axisNames(), ", ")
				}
				d.errs.add(d.t.pos(k), "%s", msg)
				continue
			}
			val, ok := d.generic(it.Content[i+1], k.Value)
			if ok {
				cell = append(cell, AxisValue{Axis: k.Value, Value: val})
			}
		}
		if what == "include" {
			for _, ax := range m.Axes {
				if _, ok := lookupCell(cell, ax.Name); !ok {
					d.errs.add(d.t.pos(it), "include entry has no value for axis %q; give every axis a value", ax.Name)
				}
			}
			cell = m.order(cell)
		} else if !m.matchesAny(cell) {
			d.errs.add(d.t.pos(it), "exclude entry %s matches no cell of the matrix; check its values", formatCell(cell))
		}
		out = append(out, cell)
	}
	return out
}

func (m *Matrix) axis(name string) *Axis {
	for i := range m.Axes {
		if m.Axes[i].Name == name {
			return &m.Axes[i]
		}
	}
	return nil
}

func (m *Matrix) axisNames() []string {
	var out []string
	for _, a := range m.Axes {
		out = append(out, a.Name)
	}
	return out
}

// order puts an include cell's values in axis order (extra axes of an axis-less matrix keep theirs).
func (m *Matrix) order(cell []AxisValue) []AxisValue {
	if len(m.Axes) == 0 {
		return cell
	}
	var out []AxisValue
	for _, ax := range m.Axes {
		if v, ok := lookupCell(cell, ax.Name); ok {
			out = append(out, AxisValue{Axis: ax.Name, Value: v})
		}
	}
	return out
}

// size is the number of cells before exclude, plus include; it saturates above MaxIterations.
func (m *Matrix) size() int {
	n := 1
	for _, ax := range m.Axes {
		n *= len(ax.Values)
		if n > MaxIterations {
			return MaxIterations + 1
		}
	}
	return n + len(m.Include)
}

func (m *Matrix) matchesAny(ex []AxisValue) bool {
	if m.size() > MaxIterations {
		return true // too big to check; iterations reports the size
	}
	for _, c := range m.product() {
		if cellMatches(c, ex) {
			return true
		}
	}
	return false
}

// product is every combination of the axes, last axis fastest.
func (m *Matrix) product() [][]AxisValue {
	cells := [][]AxisValue{nil}
	for _, ax := range m.Axes {
		var next [][]AxisValue
		for _, c := range cells {
			for _, v := range ax.Values {
				nc := append(append([]AxisValue(nil), c...), AxisValue{Axis: ax.Name, Value: v})
				next = append(next, nc)
			}
		}
		cells = next
	}
	return cells
}

// Cells returns the matrix cells in execution order: the product minus excluded cells, then include cells.
// A plan without matrix has one empty cell.
func (m *Matrix) Cells() [][]AxisValue {
	var out [][]AxisValue
	for _, c := range m.product() {
		excluded := false
		for _, ex := range m.Exclude {
			if cellMatches(c, ex) {
				excluded = true
				break
			}
		}
		if !excluded {
			out = append(out, c)
		}
	}
	if len(m.Axes) == 0 && len(m.Include) > 0 {
		out = nil
	}
	return append(out, m.Include...)
}

func lookupCell(c []AxisValue, axis string) (any, bool) {
	for _, av := range c {
		if av.Axis == axis {
			return av.Value, true
		}
	}
	return nil, false
}

// cellMatches reports whether every value of ex equals c's value on that axis.
func cellMatches(c, ex []AxisValue) bool {
	for _, e := range ex {
		v, ok := lookupCell(c, e.Axis)
		if !ok || !sameValue(v, e.Value) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	if ai, ok := toNumber(a); ok {
		if bi, ok := toNumber(b); ok {
			return ai == bi
		}
	}
	return reflect.DeepEqual(a, b)
}

func toNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func formatCell(c []AxisValue) string {
	parts := make([]string, len(c))
	for i, av := range c {
		parts[i] = av.Axis + ": " + formatValue(av.Value)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
