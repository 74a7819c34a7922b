// Package otlp sets up Quiver's telemetry from the standard OpenTelemetry
// environment variables: spans and metrics exported over OTLP/HTTP with the
// official OpenTelemetry Go SDK and exporters, and nothing at all when the
// variables do not ask for it.
//
// # What turns export on
//
// Spans are exported when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, metrics when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is.
// OTEL_TRACES_EXPORTER=none and OTEL_METRICS_EXPORTER=none turn one off,
// OTEL_SDK_DISABLED=true both. When neither is on, [Setup] returns a nil
// *telemetry.Telemetry: no provider, no exporter, no goroutine, and the
// pipeline makes no OpenTelemetry call.
//
// The exporters read the rest of the OTEL_EXPORTER_OTLP_* variables
// themselves (headers, timeout, compression, certificates), the SDK reads
// OTEL_TRACES_SAMPLER, OTEL_BSP_* and OTEL_METRIC_EXPORT_INTERVAL, and the
// resource takes OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (service.name
// is "quiver" unless they say otherwise).
//
// The protocol is http/protobuf, the specification's default. grpc and
// http/json are refused with an error naming the variable: a collector's
// OTLP/HTTP port (4318) receives as well. (The HTTP exporters still link
// gRPC's packages, through their configuration and the collector's
// protobuf packages; docs/performance.md gives what that costs a start.)
//
// The providers are not registered as OpenTelemetry's global ones: Quiver
// hands them to its own instrumentation, and libraries that record through
// the globals (an SDK's own spans) stay silent, so that nothing is recorded
// twice.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/quiverkit/quiver/telemetry"
)

// Options configure [Setup].
type Options struct {
	// ServiceVersion is service.version, Quiver's version.
	ServiceVersion string
	// Logger receives the exporters' errors (a collector that cannot be
	// reached); nil discards them.
	Logger *slog.Logger
	// Getenv reads the variables Setup itself looks at; nil is os.Getenv.
	// The exporters read theirs from the process's environment.
	Getenv func(string) string
}

// Shutdown flushes what is buffered and stops the exporters.
type Shutdown func(context.Context) error

// Setup returns the telemetry the environment asks for, and the function
// that flushes and stops it. Both are usable when nothing is asked for: the
// telemetry is nil and the shutdown does nothing.
func Setup(ctx context.Context, o Options) (*telemetry.Telemetry, Shutdown, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	none := func(context.Context) error { return nil }
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, none, nil
	}
	traces, err := wanted(getenv, "TRACES")
	if err != nil {
		return nil, none, err
	}
	metrics, err := wanted(getenv, "METRICS")
	if err != nil {
		return nil, none, err
	}
	if !traces && !metrics {
		return nil, none, nil
	}
	capture, err := telemetry.CaptureContentFromEnv(getenv)
	if err != nil {
		return nil, none, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "quiver"),
		attribute.String("service.version", o.ServiceVersion)), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, none, fmt.Errorf("telemetry resource: %w", err)
	}
	logExportErrors(o.Logger)

	opts := telemetry.Options{CaptureContent: capture, Version: o.ServiceVersion}
	var stops []Shutdown
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, none, fmt.Errorf("OTLP trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		opts.TracerProvider, stops = tp, append(stops, tp.Shutdown)
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, joined(stops), fmt.Errorf("OTLP metric exporter: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		opts.MeterProvider, stops = mp, append(stops, mp.Shutdown)
	}
	t, err := telemetry.New(opts)
	if err != nil {
		return nil, joined(stops), err
	}
	return t, joined(stops), nil
}

// wanted reports whether the variables ask for the signal's export (TRACES
// or METRICS), and refuses what Setup cannot do.
func wanted(getenv func(string) string, signal string) (bool, error) {
	exporterVar := "OTEL_" + signal + "_EXPORTER"
	switch e := strings.TrimSpace(getenv(exporterVar)); strings.ToLower(e) {
	case "none":
		return false, nil
	case "", "otlp":
	default:
		return false, fmt.Errorf("%s=%q: Quiver exports over OTLP only: want otlp or none", exporterVar, e)
	}
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
		return false, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		p := strings.TrimSpace(getenv(v))
		if p == "" {
			continue
		}
		if p != "http/protobuf" {
			return false, fmt.Errorf("%s=%q: Quiver exports OTLP over HTTP only: want http/protobuf "+
				"(a collector's OTLP/HTTP receiver, port 4318 by default)", v, p)
		}
		break // the signal's own setting wins over the general one
	}
	return true, nil
}

// joined runs every shutdown, latest first, and joins their errors.
func joined(stops []Shutdown) Shutdown {
	return func(ctx context.Context) error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i](ctx))
		}
		return errors.Join(errs...)
	}
}

// logExportErrors sends the SDK's errors (an export that failed) to l
// instead of OpenTelemetry's default, which writes them to stderr.
func logExportErrors(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		l.Warn("telemetry export failed", "err", err)
	}))
}
