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

// fade is c at a quarter of its strength over white: the colour of a
// lossy bar.
func fade(c color.RGBA) color.RGBA {
	f := func(v uint8) uint8 { return uint8(255 - (255-int(v))/4) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), 0xff}
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
// the median over their cases), and writes a PNG to w. Only cells whose
// round trip is lossless or canonical (scorecard.Counted) make a solid
// bar. Where a format carries no case of a cluster losslessly but some
// with loss, a faded bar marked † shows the lossy size, so a loss never
// looks like a saving; where it carries none at all, "n/a" stands at the
// base. The image depends only on the token counts and round-trip
// verdicts of res.
func Write(w io.Writer, res *scorecard.Result) error {
	groups := chartGroups(res)
	p := plot.New()
	p.Title.Text = "o200k_base tokens as % of compact JSON (lower is better; faded † = lossy, not a saving)"
	p.Y.Label.Text = "% of compact JSON tokens (median over the lossless cases of a group)"
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
	var marks []plotter.XY
	var markText []string
	var markOffset []vg.Length
	for j, f := range res.Formats {
		if f.Binary {
			continue // bytes, no tokens to chart
		}
		solid := make(plotter.Values, len(groups))
		faded := make(plotter.Values, len(groups))
		offset := vg.Length(float64(j)-float64(n-1)/2) * barWidth
		for i, g := range groups {
			var counted, lossy []float64
			for _, row := range res.Rows {
				c := row.Cells[j]
				if !g.keep(row) || c.NA != "" || row.Cells[0].O200k == 0 {
					continue
				}
				x := 100 * float64(c.O200k) / float64(row.Cells[0].O200k)
				if c.Lossy() {
					lossy = append(lossy, x)
				} else {
					counted = append(counted, x)
				}
			}
			switch {
			case len(counted) > 0:
				solid[i], _ = scorecard.Median(counted)
			case len(lossy) > 0:
				faded[i], _ = scorecard.Median(lossy)
				marks = append(marks, plotter.XY{X: float64(i), Y: faded[i]})
				markText = append(markText, "†")
				markOffset = append(markOffset, offset)
			default:
				marks = append(marks, plotter.XY{X: float64(i), Y: 0})
				markText = append(markText, "n/a")
				markOffset = append(markOffset, offset)
			}
			top = max(top, solid[i], faded[i])
		}
		col := palette[j%len(palette)]
		for _, bar := range []struct {
			vals  plotter.Values
			color color.Color
		}{{solid, col}, {faded, fade(col)}} {
			bars, err := plotter.NewBarChart(bar.vals, barWidth)
			if err != nil {
				return fmt.Errorf("draw chart: %w", err)
			}
			bars.LineStyle.Width = 0
			bars.Color = bar.color
			bars.Offset = offset
			p.Add(bars)
			if bar.color == color.Color(col) {
				p.Legend.Add(f.Name, bars)
			}
		}
	}
	if len(marks) > 0 {
		// A legend entry only: the bar is never added to the plot.
		key, err := plotter.NewBarChart(plotter.Values{0}, barWidth)
		if err != nil {
			return fmt.Errorf("draw chart: %w", err)
		}
		key.LineStyle.Width = 0
		key.Color = fade(color.RGBA{0x55, 0x55, 0x55, 0xff})
		p.Legend.Add("faded †: lossy only", key)
	}
	for k, m := range marks {
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{m}, Labels: []string{markText[k]}})
		if err != nil {
			return fmt.Errorf("draw chart: %w", err)
		}
		l.Offset = vg.Point{X: markOffset[k] - vg.Points(2.5), Y: vg.Points(2)}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = vg.Points(7)
			if markText[k] == "n/a" {
				l.TextStyle[i].Rotation = 1.5708
				l.Offset.X += vg.Points(6)
			}
		}
		p.Add(l)
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
