//go:build race

package main

// raceDetector is set when the tests, and so the quiver command they run
// (the test binary itself), are built with the race detector, whose shadow
// memory grows with every goroutine the process ever ran: the resident size
// then says nothing about what the server keeps.
const raceDetector = true
