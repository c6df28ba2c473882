package main

import (
	"fmt"
	"os"

	"github.com/sdbus-go/sdbus/fakebus"
)

// loadScript reads and validates a script file (fakebus.ParseScriptFile).
// Errors start with the file name and name the JSON path of the problem.
func loadScript(name string) (*fakebus.ScriptFile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	st, err := fakebus.ParseScriptFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return st, nil
}
