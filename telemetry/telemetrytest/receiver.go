package telemetrytest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	metricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	otlptrace "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Receiver is a loopback OTLP/HTTP collector: a real HTTP server on
// 127.0.0.1 that decodes the protobuf export requests it is sent, as a
// collector's OTLP/HTTP receiver does.
type Receiver struct {
	URL string // the endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT

	mu      sync.Mutex
	traces  []*tracepb.ExportTraceServiceRequest
	metrics []*metricpb.ExportMetricsServiceRequest
	paths   []string
}

// NewReceiver starts a Receiver, stopped when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	rc := &Receiver{}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	rc.URL = srv.URL
	return rc
}

// ServeHTTP decodes one export request.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := io.Reader(r.Body)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err != nil || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want a protobuf body", http.StatusBadRequest)
		return
	}
	var msg proto.Message
	switch r.URL.Path {
	case "/v1/traces":
		msg = &tracepb.ExportTraceServiceRequest{}
	case "/v1/metrics":
		msg = &metricpb.ExportMetricsServiceRequest{}
	default:
		http.NotFound(w, r)
		return
	}
	if err := proto.Unmarshal(b, msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.paths = append(rc.paths, r.URL.Path)
	switch m := msg.(type) {
	case *tracepb.ExportTraceServiceRequest:
		rc.traces = append(rc.traces, m)
	case *metricpb.ExportMetricsServiceRequest:
		rc.metrics = append(rc.metrics, m)
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// Paths returns the paths of the requests received, in order.
func (rc *Receiver) Paths() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.paths...)
}

// WireSpan is a span as it arrived, with its resource's attributes.
type WireSpan struct {
	*otlptrace.Span
	Scope    string
	Resource map[string]string
}

// Attrs returns the span's string, integer and boolean attributes, by key.
func (s WireSpan) Attrs() map[string]string { return wireAttrs(s.Attributes) }

// Spans returns every span received.
func (rc *Receiver) Spans() []WireSpan {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []WireSpan
	for _, req := range rc.traces {
		for _, rs := range req.ResourceSpans {
			res := wireAttrs(rs.GetResource().GetAttributes())
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, WireSpan{Span: s, Scope: ss.GetScope().GetName(), Resource: res})
				}
			}
		}
	}
	return out
}

// MetricNames returns the names of the metrics received.
func (rc *Receiver) MetricNames() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []string
	for _, req := range rc.metrics {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					out = append(out, m.Name)
				}
			}
		}
	}
	return out
}

func wireAttrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = strconv.FormatInt(v.IntValue, 10)
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = strconv.FormatBool(v.BoolValue)
		}
	}
	return m
}
