//go:build !race

package busd

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
