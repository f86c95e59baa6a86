// Package chart draws the format scorecard's chart (see package scorecard) as a PNG. It is
// the only part of the scorecard that needs the plotting stack (gonum/plot), so it lives apart:
// packages that use scorecard's measurements, such as the request pipeline, do not link it.
package chart

import (
	"fmt"
	"image/color"
	"io"

	"github.com/graphwire/graphwire/scorecard"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette colours the formats, in format order (colour-blind-safe Okabe–Ito).
var palette = []color.RGBA{
	{0x00, 0x00, 0x00, 0xff}, // json
	{0x99, 0x99, 0x99, 0xff}, // json-pretty
	{0xe6, 0x9f, 0x00, 0xff}, // goon
	{0x56, 0xb4, 0xe9, 0xff}, // gcf
	{0x00, 0x9e, 0x73, 0xff}, // gcf-graph
	{0xd5, 0x5e, 0x00, 0xff}, // gcx
	{0xcc, 0x79, 0xa7, 0xff}, // toon
}

// chartGroup is one cluster of bars.
type chartGroup struct {
	label string
	keep  func(scorecard.Row) bool
}

// chartGroups clusters the rows: the two multi-case groups (split into
// graph and generic for the GCX tools) as one cluster each, every other
// case on its own.
func chartGroups(res *scorecard.Result) []chartGroup {
	var out []chartGroup
	add := func(label string, keep func(scorecard.Row) bool) {
		n := 0
		for _, r := range res.Rows {
			if keep(r) {
				n++
			}
		}
		if n > 0 {
			out = append(out, chartGroup{fmt.Sprintf("%s (%d)", label, n), keep})
		}
	}
	add("GOON conf.", func(r scorecard.Row) bool { return r.Case.Group == scorecard.GroupGOON })
	add("GCX graph", func(r scorecard.Row) bool { return r.Case.Group == scorecard.GroupGCX && !r.Case.Generic() })
	add("GCX generic", func(r scorecard.Row) bool { return r.Case.Group == scorecard.GroupGCX && r.Case.Generic() })
	for _, row := range res.Rows {
		if row.Case.Group == scorecard.GroupSynthetic || row.Case.Group == scorecard.GroupSeeded {
			name := row.Case.Group + "/" + row.Case.Name
			out = append(out, chartGroup{name, func(r scorecard.Row) bool { return r.Case.Group+"/"+r.Case.Name == name }})
		}
	}
	return out
}

// Write draws grouped bars of o200k_base tokens per format, as a
// percentage of compact JSON, for each case (the GOON and GCX groups as
// the median over their cases), and writes a PNG to w. A format that
// cannot carry a case has no bar. The image depends only on the token
// counts of res.
func Write(w io.Writer, res *scorecard.Result) error {
	groups := chartGroups(res)
	p := plot.New()
	p.Title.Text = "o200k_base tokens as % of compact JSON (lower is better)"
	p.Y.Label.Text = "% of compact JSON tokens (median over the cases of a group)"
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = false
	grid := plotter.NewGrid()
	grid.Vertical.Width = 0
	p.Add(grid)
	labels := make([]string, len(groups))
	for i, g := range groups {
		labels[i] = g.label
	}
	barWidth := vg.Points(10)
	n := len(res.Formats)
	top := 100.0
	for j, f := range res.Formats {
		vals := make(plotter.Values, len(groups))
		for i, g := range groups {
			var xs []float64
			for _, row := range res.Rows {
				if !g.keep(row) || row.Cells[j].NA != "" || row.Cells[0].O200k == 0 {
					continue
				}
				xs = append(xs, 100*float64(row.Cells[j].O200k)/float64(row.Cells[0].O200k))
			}
			vals[i], _ = scorecard.Median(xs)
			top = max(top, vals[i])
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return fmt.Errorf("draw chart: %w", err)
		}
		bars.LineStyle.Width = 0
		bars.Color = palette[j%len(palette)]
		bars.Offset = vg.Length(float64(j)-float64(n-1)/2) * barWidth
		p.Add(bars)
		p.Legend.Add(f.Name, bars)
	}
	ref := plotter.NewFunction(func(float64) float64 { return 100 })
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ref.Width = vg.Points(0.8)
	p.Add(ref)
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	// Headroom above the tallest bar keeps the legend clear of the bars.
	p.Y.Max = top * 1.4
	p.X.Min, p.X.Max = -0.6, float64(len(groups))-0.4
	var ticks []plot.Tick
	for y := 0.0; y <= p.Y.Max; y += 25 {
		t := plot.Tick{Value: y}
		if int(y)%50 == 0 {
			t.Label = fmt.Sprintf("%.0f%%", y)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	width := max(float64(len(groups))*float64(n+3)*10+150, 720)
	wt, err := p.WriterTo(vg.Points(width), vg.Points(480), "png")
	if err != nil {
		return fmt.Errorf("draw chart: %w", err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("write chart: %w", err)
	}
	return nil
}
