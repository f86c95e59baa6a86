// Package scorecard measures graphwire's output formats over a fixed corpus
// and renders the result as a Markdown report; package scorecard/chart draws
// it as a PNG chart.
//
// The corpus ([Corpus]) is the GOON conformance inputs, the 20 GCX tool
// responses (converted to GraphResponses where they fit, otherwise kept as
// generic JSON), synthetic graphs from internal/graphgen and whatever
// extra cases the caller adds (graphwire bench adds one query result per
// query type from the seeded embedded graph). [Measure] formats every case
// in every format of [Formats] and records bytes, o200k_base and
// cl100k_base tokens, the round-trip verdict and, optionally, encode and
// decode speed. [Session] replays a scripted five-call agent session
// through gcf-graph's sessions and deltas.
//
// Everything except the timing columns is deterministic: the same corpus
// gives the same report bytes on every run. Timings sit in their own
// tables, so a diff of two runs shows only timing changes.
//
//	cases, _ := scorecard.Corpus(os.DirFS(conformanceRoot), scorecard.CorpusOptions{})
//	formats, _ := scorecard.Formats(formatter.Default())
//	res, _ := scorecard.Measure(cases, formats, scorecard.Options{Timing: true})
//	res.Session, _ = scorecard.Session()
//	_ = scorecard.WriteReport(md, res, scorecard.ReportOptions{Command: "graphwire bench", Chart: "scorecard.png"})
//	_ = chart.Write(png, res) // package scorecard/chart
//
// It imports the codecs and formatter, so it sits beside them rather than in
// internal/ (the bottom layer). It does not import the plotting stack
// (gonum/plot): only scorecard/chart does, and only the scorecard build of
// cmd/graphwire (go build -tags scorecard; make bench) imports that, so the
// binary users run never links it.
package scorecard
