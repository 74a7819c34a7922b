package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/telemetry/otlp"
)

// shutdownGrace bounds how long the end of a run waits for the last spans
// and metrics to reach the collector: a collector that is down must not
// hold `quiver call` up.
const shutdownGrace = 5 * time.Second

// telemetry is the option that records the run's spans and metrics, when
// the OTEL_* variables ask for export (package telemetry/otlp); none when
// they do not, and then nothing is set up at all. What is buffered is
// flushed when the run closes, after the toolkit.
func (a *app) telemetry(logger *slog.Logger) ([]quiver.Option, error) {
	tel, shutdown, err := otlp.Setup(context.Background(), otlp.Options{ServiceVersion: buildVersion().Version, Logger: logger})
	if err != nil {
		return nil, usageError(err)
	}
	if tel == nil {
		return nil, nil
	}
	a.closer = append(a.closer, closeFunc(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		return shutdown(ctx)
	}))
	return []quiver.Option{quiver.WithTelemetry(tel)}, nil
}

// closeFunc is an io.Closer.
type closeFunc func() error

func (f closeFunc) Close() error { return f() }

// stderrLogger is where `quiver call` and `quiver run` report a failed
// export: standard error, warnings only.
func stderrLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
