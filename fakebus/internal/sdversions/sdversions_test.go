package sdversions

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The four releases measured in the sandbox (Debian's builds) and what
// each did: the table must say the same.
func TestMeasuredReleases(t *testing.T) {
	r247, r252, r257, r262 := R("247.3"), R("252.39"), R("257.13"), R("262.1")
	all := []Release{r247, r252, r257, r262}
	settings := map[string][]bool{ // property/unit -> accepted on 247, 252, 257, 262
		"CollectMode/service":      {true, true, true, true},
		"OOMPolicy/service":        {true, true, true, true},
		"OOMPolicy/scope":          {false, true, true, true},
		"CPUWeight/slice":          {false, true, true, true},
		"StartupAllowedCPUs/slice": {false, true, true, true},
		"DelegateSubgroup/scope":   {false, false, true, true},
		"MemoryZSwapMax/slice":     {false, false, true, true},
	}
	for _, s := range Settings {
		want, ok := settings[s.Property+"/"+s.Unit]
		if !ok {
			t.Errorf("no measurement for %s on a %s", s.Property, s.Unit)
			continue
		}
		for i, r := range all {
			if got := s.Accepts(r); got != want[i] {
				t.Errorf("%s on a %s accepted by %s: %v, measured %v", s.Property, s.Unit, r, got, want[i])
			}
		}
	}
	methods := map[string][]bool{
		"StartUnitWithFlags":                        {false, true, true, true},
		"EnqueueMarkedJobs":                         {false, true, true, true},
		"BindMountUnit":                             {false, true, true, true},
		"MountImageUnit":                            {false, true, true, true},
		"GetUnitByPIDFD":                            {false, false, true, true},
		"QueueSignalUnit":                           {false, false, true, true},
		"SoftReboot":                                {false, false, true, true},
		"StartAuxiliaryScope":                       {false, false, true, false},
		"EnqueueUnitJobMany":                        {false, false, false, true},
		"KillUnitSubgroup":                          {false, false, false, true},
		"RemoveSubgroupFromUnit":                    {false, false, false, true},
		"FreezeUnit":                                {true, true, true, true},
		"AttachProcessesToUnit":                     {true, true, true, true},
		"StartTransientUnit":                        {true, true, true, true},
		"DumpUnitsMatchingPatterns":                 {false, true, true, true},
		"DumpUnitsMatchingPatternsByFileDescriptor": {false, true, true, true},
		"DisableUnitFilesWithFlagsAndInstallInfo":   {false, false, true, true},
		"DumpUnitFileDescriptorStore":               {false, false, true, true},
		"AddDependencyUnitFiles":                    {true, true, true, true},
		"CleanUnit":                                 {true, true, true, true},
		"DumpByFileDescriptor":                      {true, true, true, true},
		"GetDynamicUsers":                           {true, true, true, true},
		"LookupDynamicUserByName":                   {true, true, true, true},
		"LookupDynamicUserByUID":                    {true, true, true, true},
	}
	for name, want := range methods {
		for i, r := range all {
			if got := HasMethod(r, name); got != want[i] {
				t.Errorf("%s on %s: %v, measured %v", name, r, got, want[i])
			}
		}
	}
	hidden := [2][]bool{{true, true, true, true}, {true, true, true, false}}
	readables := map[string][2][]bool{ // Get answers, GetAll lists: on 247, 252, 257, 262
		"EffectiveMemoryMax":  {{false, false, true, true}, {false, false, true, true}},
		"EffectiveMemoryHigh": {{false, false, true, true}, {false, false, true, true}},
		"EffectiveTasksMax":   {{false, false, true, true}, {false, false, true, true}},
		"MemoryZSwapMax":      {{false, false, true, true}, {false, false, true, true}},
		"CPUAccounting":       hidden,
		"CPUShares":           hidden,
		"StartupCPUShares":    hidden,
		"MemoryLimit":         hidden,
		"BlockIOAccounting":   hidden,
		"BlockIOWeight":       hidden,
		"DefaultMemoryLow":    hidden,
		"DefaultMemoryMin":    hidden,
	}
	for _, p := range Readables {
		want, ok := readables[p.Property]
		if !ok {
			t.Errorf("no measurement for %s", p.Property)
			continue
		}
		for i, r := range all {
			if got := p.Exists(r); got != want[0][i] {
				t.Errorf("%s exists on %s: %v, measured %v", p.Property, r, got, want[0][i])
			}
			if got := p.InGetAll(r); got != want[1][i] {
				t.Errorf("%s in GetAll on %s: %v, measured %v", p.Property, r, got, want[1][i])
			}
		}
	}
	features := map[string][]bool{
		"CollectMode":      {true, true, true, true},
		"AttachProcesses":  {true, true, true, true},
		"CPUQuotaPeriod":   {true, true, true, true},
		"AllowedCPUs":      {true, true, true, true},
		"FreezeThaw":       {true, true, true, true},
		"DelegateSubgroup": {false, false, true, true},
		"EffectiveLimits":  {false, false, true, true},
		"CPUWeightIdle":    {false, true, true, true},
		"ScopeOOMPolicy":   {false, true, true, true},
		"MemoryZSwapMax":   {false, false, true, true},
		"DeviceAllowMajor": {true, true, true, true},
	}
	if diff := cmp.Diff(keys(features), keys(Features)); diff != "" {
		t.Errorf("features measured and in the table (-measured +table):\n%s", diff)
	}
	for f, want := range features {
		for i, r := range all {
			if got := HasFeature(r, f); got != want[i] {
				t.Errorf("feature %s on %s: %v, measured %v", f, r, got, want[i])
			}
		}
	}
	behaviours := map[Behaviour][]bool{
		ReexecJobRemovedBeforeName:  {false, false, false, true},
		AliasPointsToLink:           {false, false, true, true},
		DestinationNotPresent:       {false, true, true, true},
		DelegateV2Controllers:       {false, true, true, true},
		UnitFileLinksOwnScope:       {false, true, true, true},
		UnitFileLinksEUCLEAN:        {false, true, true, true},
		AddDependencyBadUnitSetting: {false, true, true, true},
		CleanFDStore:                {false, false, true, true},
		KillWhomMessage:             {false, false, true, true},
		KillCgroupWhom:              {false, false, false, true},
		KillFailNeedsProcess:        {false, false, false, true},
		ReloadFailureFailsStopped:   {false, false, false, true},
		LiveMountChecks:             {false, false, true, true},
		AuxiliaryScopeRemoved:       {false, false, false, true},
		PresetOnlyUnitFiles:         {false, false, false, true},
		MaskedUnitNoDropIns:         {false, false, true, true},
		MaskedUnitFragmentIsLink:    {false, true, true, true},
		DropInDirsSeenAtOnce:        {false, false, true, true},
		SocketCgroupWithProcesses:   {false, false, false, true},
		TimerAfterTimeSet:           {false, true, true, true},
		TargetDescriptionsRenamed:   {false, true, true, true},
		PolkitInteractive:           {false, true, true, true},
		PolkitInteractiveExplained:  {false, false, false, true},
		BusServiceNotify:            {false, true, true, true},
		BusServiceUser:              {false, false, true, true},
		JournalAuditSocketOptional:  {false, false, true, true},
		JournalSocketsDescribed:     {false, false, true, true},
		SystemdBinariesInUsr:        {false, false, true, true},
		JournalNotifyReload:         {false, false, false, true},
		NoSuchProcessErrno:          {false, false, true, true},
		CgroupCatchup:               {false, true, true, true},
		StopWhenBound:               {false, true, true, true},
		TryRestartActivating:        {false, true, true, true},
	}
	for b, want := range behaviours {
		for i, r := range all {
			if got := Behaves(r, b); got != want[i] {
				t.Errorf("behaviour %s on %s: %v, measured %v", b, r, got, want[i])
			}
		}
	}
}

func TestRelease(t *testing.T) {
	for _, c := range []struct {
		r, s string
		want bool
	}{{"252.38", "252.38", true}, {"252.39", "252.38", true}, {"252", "252.38", false}, {"253", "252.38", true}, {"251.99", "252", false}} {
		if got := R(c.r).AtLeast(R(c.s)); got != c.want {
			t.Errorf("%s.AtLeast(%s) = %v", c.r, c.s, got)
		}
	}
	if s := (Span{Since: R("255"), Until: R("258")}); !s.Has(R("257.13")) || s.Has(R("258")) || s.Has(R("254")) {
		t.Errorf("Span %v", s)
	}
}

// Every sdbus.Feature (each constant of features.go) has its table entry,
// and Feature.Since, sdbus's version hint, says the table's upstream
// release.
func TestEveryFeature(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../../features.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var consts []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Feature" {
				continue
			}
			for _, v := range vs.Values {
				s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				consts = append(consts, s)
			}
		}
	}
	sort.Strings(consts)
	if diff := cmp.Diff(consts, keys(Features)); diff != "" {
		t.Errorf("sdbus features and the table's (-sdbus +table):\n%s", diff)
	}
	for _, name := range consts {
		since, upstream := FeatureSince(name)
		if upstream != (Release{}) {
			since = upstream
		}
		if got := sdbus.Feature(name).Since(); got != since.Major {
			t.Errorf("sdbus.Feature(%s).Since() = %d; the table says %s", name, got, since)
		}
	}
}
