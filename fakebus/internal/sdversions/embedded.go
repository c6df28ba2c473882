package sdversions

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
)

// managerCaptures holds the manager objects of the captured releases,
// for the fake to answer the Manager properties it does not model.
//
//go:embed data/*/manager.json
var managerCaptures embed.FS

// CapturedManager returns the manager object captured on the release
// nearest r: the newest captured release not newer than r, or the oldest
// for an older r.
func CapturedManager(r Release) (*Object, error) {
	dirs, err := fs.Glob(managerCaptures, "data/*")
	if err != nil || len(dirs) == 0 {
		return nil, fmt.Errorf("no captured manager: %v", err)
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
	b, err := fs.ReadFile(managerCaptures, path.Join(best, "manager.json"))
	if err != nil {
		return nil, err
	}
	o := &Object{}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, fmt.Errorf("%s/manager.json: %w", best, err)
	}
	return o, nil
}
