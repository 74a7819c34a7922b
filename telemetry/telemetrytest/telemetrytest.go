// Package telemetrytest keeps the spans and metrics a [telemetry.Telemetry]
// records in memory, through the OpenTelemetry SDK's in-memory exporter and
// manual reader, for tests that read them.
package telemetrytest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/quiverkit/quiver/telemetry"
)

// Recorder is a Telemetry whose spans (exported as each ends) and metrics
// (collected on demand) a test reads.
type Recorder struct {
	*telemetry.Telemetry
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

// New returns a Recorder; capture turns content capture on. The providers
// are shut down when the test ends.
func New(t testing.TB, capture bool) *Recorder {
	t.Helper()
	r := &Recorder{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture})
	if err != nil {
		t.Fatalf("telemetry.New: %v", err)
	}
	r.Telemetry = tel
	return r
}

// Spans returns the spans that have ended, in the order they ended.
func (r *Recorder) Spans() tracetest.SpanStubs { return r.spans.GetSpans() }

// Named returns the ended spans called name.
func (r *Recorder) Named(name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Attrs returns a span's attributes as strings (Value.String), by key.
func Attrs(s tracetest.SpanStub) map[string]string {
	return attrMap(s.Attributes)
}

func attrMap(kvs []attribute.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// Metrics collects the metrics recorded so far.
func (r *Recorder) Metrics(t testing.TB) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("collect metrics: %v", err)
	}
	return rm
}

// Point is one data point of a metric: its attributes and its value (a
// counter's sum, a histogram's count).
type Point struct {
	Attrs map[string]string
	Value float64
}

// Points returns the data points of the metric called name.
func (r *Recorder) Points(t testing.TB, name string) []Point {
	t.Helper()
	var out []Point
	for _, sm := range r.Metrics(t).ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out = append(out, Point{attrMap(p.Attributes.ToSlice()), float64(p.Value)})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, Point{attrMap(p.Attributes.ToSlice()), float64(p.Count)})
				}
			}
		}
	}
	return out
}
