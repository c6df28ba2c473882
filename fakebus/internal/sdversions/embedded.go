package sdversions

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
)

// captures holds the objects captured on each release (data/RELEASE/KIND.json
// and KIND.xml), for the fake to answer the properties it does not model
// as measured, and to declare each interface's members as that release
// does (Object.Members).
//
//go:embed data/*/*.json data/*/*.xml
var captures embed.FS

// CapturedManager returns the manager object captured on the release
// nearest r (see CapturedObject).
func CapturedManager(r Release) (*Object, error) {
	return CapturedObject(r, "manager")
}

// CapturedObject returns the object of a kind ("manager", "service-file",
// "scope", "job", ...; data/README.md) captured on the release nearest r:
// the newest captured release not newer than r, or the oldest for an
// older r.
func CapturedObject(r Release, kind string) (*Object, error) {
	dirs, err := fs.Glob(captures, "data/*")
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no captured release: %v", err)
	}
	best, bestMajor := "", -1
	oldest, oldestMajor := "", int(^uint(0)>>1)
	for _, d := range dirs {
		major, err := strconv.Atoi(path.Base(d))
		if err != nil {
			continue
		}
		if major <= r.Major && major > bestMajor {
			best, bestMajor = d, major
		}
		if major < oldestMajor {
			oldest, oldestMajor = d, major
		}
	}
	if best == "" {
		best = oldest
	}
	b, err := fs.ReadFile(captures, path.Join(best, kind+".json"))
	if err != nil {
		return nil, err
	}
	o := &Object{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, fmt.Errorf("%s/%s.json: %w", best, kind, err)
	}
	x, err := fs.ReadFile(captures, path.Join(best, kind+".xml"))
	if err != nil {
		return nil, err
	}
	o.XML = string(x) // Node is left nil: Members reads XML
	return o, nil
}
