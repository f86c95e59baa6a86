package telemetry

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/gcf"
)

// Options configures [New]. The zero value is valid.
type Options struct {
	// Admission, when set, is sampled at each scrape for the slot gauges
	// graphwire_admission_slots_in_use, _waiting and _slots. The embedded
	// engine serves at most one statement per pooled connection and serve
	// gives admission as many slots as connections, so these gauges are the
	// engine pool's use and waits as well.
	Admission *admission.Controller
	// Process adds the Go runtime and process collectors.
	Process bool
}

// Metrics records the service's Prometheus series in its own registry (no
// global state). A nil *Metrics records nothing, so a library records
// unconditionally. It is safe for concurrent use.
type Metrics struct {
	reg             *prometheus.Registry
	requests        *prometheus.CounterVec
	requestSeconds  *prometheus.HistogramVec
	engineSeconds   *prometheus.HistogramVec
	formatSeconds   *prometheus.HistogramVec
	rows            *prometheus.CounterVec
	tokens          *prometheus.CounterVec
	bytes           *prometheus.CounterVec
	rejections      *prometheus.CounterVec
	graphAnswers    *prometheus.CounterVec
	snapshotLookups *prometheus.CounterVec
	redactionCalls  *prometheus.CounterVec
	redactionIDs    *prometheus.CounterVec
	redactionDenied *prometheus.CounterVec
	redactionCache  *prometheus.CounterVec
	redactionRows   prometheus.Counter
	redactionTime   prometheus.Histogram
}

// latencyBuckets span 1 ms to about 33 s, doubling.
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 16)

// New returns the metrics with every series registered.
func New(opts Options) (*Metrics, error) {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_requests_total",
			Help: "Requests served, by face (grpc, mcp), method (gRPC full method or MCP tool), status code and DSL query type (empty when none was compiled)."},
			[]string{"face", "method", "code", "query_type"}),
		requestSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "graphwire_request_duration_seconds",
			Help: "Time from receiving a request to answering it, by face and method.", Buckets: latencyBuckets},
			[]string{"face", "method"}),
		engineSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "graphwire_engine_duration_seconds",
			Help: "Time the engine took for a query's statements and the response build, by query type.", Buckets: latencyBuckets},
			[]string{"query_type"}),
		formatSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "graphwire_format_duration_seconds",
			Help: "Time formatting an answer took (with token counting, auto's candidates and any budget search), by format.", Buckets: latencyBuckets},
			[]string{"format"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_answer_rows_total",
			Help: "Result rows sent in answers, by format."}, []string{"format"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_answer_tokens_total",
			Help: "o200k tokens of the answers sent, by format (streamed answers are not counted)."}, []string{"format"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_answer_bytes_total",
			Help: "Bytes of formatted answers sent, by format."}, []string{"format"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_admission_rejections_total",
			Help: "Queries refused a slot, by the limit that refused them (caller, server, queue)."}, []string{"limit"}),
		graphAnswers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_graph_answers_total",
			Help: "gcf-graph answers by outcome (full, delta, unchanged)."}, []string{"outcome"}),
		snapshotLookups: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_graph_snapshot_lookups_total",
			Help: "Lookups of the graph a gcf-graph client says it holds (pack_root), by result (hit, miss)."}, []string{"result"}),
		redactionCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_redaction_calls_total",
			Help: "Calls to the redaction authority, by result (ok, or the failure: unavailable, timeout, malformed); a failure fails the request."}, []string{"result"}),
		redactionIDs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_redaction_ids_total",
			Help: "Node ids checked by redaction, by where the decision came from (cache, authority)."}, []string{"source"}),
		redactionDenied: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_redaction_denied_total",
			Help: "Node ids the redaction authority denied, by entity type."}, []string{"entity"}),
		redactionCache: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "graphwire_redaction_cache_lookups_total",
			Help: "Per-caller redaction cache lookups, by result (hit, miss)."}, []string{"result"}),
		redactionRows: prometheus.NewCounter(prometheus.CounterOpts{Name: "graphwire_redaction_withheld_rows_total",
			Help: "Result rows withheld by redaction."}),
		redactionTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "graphwire_redaction_duration_seconds",
			Help: "Time one call to the redaction authority took, failed calls included.", Buckets: latencyBuckets}),
	}
	cs := []prometheus.Collector{m.requests, m.requestSeconds, m.engineSeconds, m.formatSeconds, m.rows, m.tokens, m.bytes,
		m.rejections, m.graphAnswers, m.snapshotLookups, m.redactionCalls, m.redactionIDs, m.redactionDenied, m.redactionCache,
		m.redactionRows, m.redactionTime}
	if c := opts.Admission; c != nil {
		cs = append(cs,
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "graphwire_admission_slots_in_use",
				Help: "Query slots held now (with the embedded engine, its connections in use)."},
				func() float64 { return float64(c.Stats().Running) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "graphwire_admission_waiting",
				Help: "Queries waiting for a slot now."},
				func() float64 { return float64(c.Stats().Waiting) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "graphwire_admission_slots",
				Help: "Query slots in all (--max-concurrent)."},
				func() float64 { return float64(c.Options().MaxConcurrent) }))
	}
	if opts.Process {
		cs = append(cs, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Label values known in advance are exported from the start, at 0, so
	// a scrape shows every series and rate() sees the first increment.
	for _, l := range []admission.Limit{admission.LimitCaller, admission.LimitServer, admission.LimitQueue} {
		m.rejections.WithLabelValues(string(l))
	}
	for _, o := range []gcf.Outcome{gcf.OutcomeFull, gcf.OutcomeDelta, gcf.OutcomeUnchanged} {
		m.graphAnswers.WithLabelValues(o.String())
	}
	for _, r := range []string{"hit", "miss"} {
		m.snapshotLookups.WithLabelValues(r)
		m.redactionCache.WithLabelValues(r)
	}
	for _, r := range []string{"ok", "unavailable", "timeout", "malformed"} {
		m.redactionCalls.WithLabelValues(r)
	}
	for _, r := range []string{"cache", "authority"} {
		m.redactionIDs.WithLabelValues(r)
	}
	return m, nil
}

// Handler serves the metrics in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request records one finished request of face.
func (m *Metrics) Request(face, method, code, queryType string, d time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(face, method, code, queryType).Inc()
	m.requestSeconds.WithLabelValues(face, method).Observe(d.Seconds())
}

// Engine records the engine time of one query.
func (m *Metrics) Engine(queryType string, d time.Duration) {
	if m == nil {
		return
	}
	m.engineSeconds.WithLabelValues(queryType).Observe(d.Seconds())
}

// Answer records one formatted answer: the time formatting took and what
// was sent. tokens is 0 when the answer was not counted.
func (m *Metrics) Answer(format string, d time.Duration, rows int64, tokens, bytes int) {
	if m == nil {
		return
	}
	m.formatSeconds.WithLabelValues(format).Observe(d.Seconds())
	m.rows.WithLabelValues(format).Add(float64(rows))
	m.tokens.WithLabelValues(format).Add(float64(tokens))
	m.bytes.WithLabelValues(format).Add(float64(bytes))
}

// Rejected records a query refused by admission's limit.
func (m *Metrics) Rejected(limit string) {
	if m == nil {
		return
	}
	m.rejections.WithLabelValues(limit).Inc()
}

// GraphAnswer records a gcf-graph answer's outcome.
func (m *Metrics) GraphAnswer(outcome string) {
	if m == nil {
		return
	}
	m.graphAnswers.WithLabelValues(outcome).Inc()
}

// SnapshotLookup records whether the graph a client said it holds was
// remembered.
func (m *Metrics) SnapshotLookup(hit bool) {
	if m == nil {
		return
	}
	r := "miss"
	if hit {
		r = "hit"
	}
	m.snapshotLookups.WithLabelValues(r).Inc()
}

// RedactionCall records one call to the redaction authority about n ids:
// failure is "" for success, else the failure's reason.
func (m *Metrics) RedactionCall(failure string, n int, d time.Duration) {
	if m == nil {
		return
	}
	if failure == "" {
		failure = "ok"
	}
	m.redactionCalls.WithLabelValues(failure).Inc()
	m.redactionIDs.WithLabelValues("authority").Add(float64(n))
	m.redactionTime.Observe(d.Seconds())
}

// RedactionCache records per-caller cache lookups: hits decided from the
// cache, misses sent to the authority.
func (m *Metrics) RedactionCache(hits, misses int) {
	if m == nil {
		return
	}
	m.redactionCache.WithLabelValues("hit").Add(float64(hits))
	m.redactionCache.WithLabelValues("miss").Add(float64(misses))
	m.redactionIDs.WithLabelValues("cache").Add(float64(hits))
}

// RedactionDenied records n ids of entity the authority denied.
func (m *Metrics) RedactionDenied(entity string, n int) {
	if m == nil || n == 0 {
		return
	}
	m.redactionDenied.WithLabelValues(entity).Add(float64(n))
}

// RedactionWithheld records n result rows withheld by redaction.
func (m *Metrics) RedactionWithheld(n int) {
	if m == nil || n == 0 {
		return
	}
	m.redactionRows.Add(float64(n))
}
