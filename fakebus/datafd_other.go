//go:build !linux

package fakebus

import (
	"errors"
	"os"
)

// dataFD needs memfd_create, which only Linux has (datafd_linux.go).
func dataFD(data string) (*os.File, error) {
	return nil, errors.New("fakebus: no memfd on this system")
}
