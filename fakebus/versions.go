package fakebus

// release says how one name changed across systemd releases. A name is a
// unit property (read with Get/GetAll, set with StartTransientUnit and
// SetUnitProperties), a Manager method, a job mode ("mode:triggering") or
// a value form ("CPUWeight=idle").
type release struct {
	// since is the first release that has it; 0: every release still in
	// use. WithBackport makes it available earlier.
	since int
	// sinceFor overrides since per unit type ("scope").
	sinceFor map[string]int
	// until is the first release that no longer has it; 0: still there.
	until int
	// hiddenFrom is the first release whose GetAll and introspection
	// leave the property out, while Get still answers it and
	// StartTransientUnit still accepts it; 0: never hidden.
	hiddenFrom int
}

// releases is the fake's one per-version table: every difference between
// releases the fake plays is a row here, nowhere else. Upstream's first
// release unless a note says otherwise; measured on Debian's 247.3, 252.39,
// 257.13 and 262.1 where the note says so (see the systemd-versions
// reference in the repository's issue 11). It is read-only.
var releases = map[string]release{
	// Unit settings.
	"CollectMode":   {since: 236},
	"AddRef":        {since: 244},
	"ExecCondition": {since: 243},
	// OOMPolicy came to services in 243; upstream lists it for scopes
	// from 253, but Debian's 252.38 accepts it (measured: 247 refuses it
	// on a scope with PropertyReadOnly, 252.38+ accepts it).
	"OOMPolicy":       {since: 243, sinceFor: map[string]int{"scope": 252}},
	"FinalKillSignal": {since: 243},

	// Resource control.
	"CPUQuotaPeriodUSec":   {since: 242},
	"AllowedCPUs":          {since: 244},
	"AllowedMemoryNodes":   {since: 244},
	"EffectiveCPUs":        {since: 244},
	"EffectiveMemoryNodes": {since: 244},
	// Measured: 247 refuses StartupAllowedCPUs, 252 accepts it.
	"StartupAllowedCPUs":        {since: 249},
	"IODeviceLatencyTargetUSec": {since: 240},
	"MemoryMin":                 {since: 240},
	"MemoryHigh":                {since: 231},
	"MemoryMax":                 {since: 231},
	"MemorySwapMax":             {since: 232},
	// Measured: 247 and 252 refuse MemoryZSwapMax (PropertyReadOnly), 257
	// accepts it.
	"MemoryZSwapMax":  {since: 253},
	"TasksAccounting": {since: 227},
	"TasksMax":        {since: 227},
	// EffectiveMemoryMax stands for EffectiveMemoryHigh and
	// EffectiveTasksMax too (one backport). Measured: absent on 247 and
	// 252, present on 257 and 262.
	"EffectiveMemoryMax":  {since: 256},
	"Delegate":            {since: 218},
	"DelegateControllers": {since: 236},
	// Measured: 247 and 252 refuse DelegateSubgroup on a scope, 257
	// accepts it.
	"DelegateSubgroup":         {since: 254},
	"DisableControllers":       {since: 240},
	"IPAccounting":             {since: 235},
	"ManagedOOMSwap":           {since: 247},
	"ManagedOOMMemoryPressure": {since: 247},
	// CPUWeight=0, the idle class. Measured: 247 refuses it with
	// InvalidArgs "out of range", 252 accepts it.
	"CPUWeight=idle": {since: 252},

	// Deprecated cgroup-v1 settings. Measured: 262 leaves them out of
	// GetAll and introspection; Get still answers them and
	// StartTransientUnit still accepts them.
	"CPUAccounting":           {hiddenFrom: 262},
	"CPUShares":               {hiddenFrom: 262},
	"StartupCPUShares":        {hiddenFrom: 262},
	"MemoryLimit":             {hiddenFrom: 262},
	"BlockIOAccounting":       {hiddenFrom: 262},
	"BlockIOWeight":           {hiddenFrom: 262},
	"StartupBlockIOWeight":    {hiddenFrom: 262},
	"BlockIODeviceWeight":     {hiddenFrom: 262},
	"BlockIOReadBandwidth":    {hiddenFrom: 262},
	"BlockIOWriteBandwidth":   {hiddenFrom: 262},
	"DefaultMemoryLow":        {hiddenFrom: 262},
	"DefaultMemoryMin":        {hiddenFrom: 262},
	"DefaultStartupMemoryLow": {hiddenFrom: 262},

	// Manager methods. Measured: 252 has StartUnitWithFlags,
	// EnqueueMarkedJobs, BindMountUnit and MountImageUnit over 247; 257
	// adds GetUnitByPIDFD, QueueSignalUnit, SoftReboot and
	// StartAuxiliaryScope; 262 drops StartAuxiliaryScope and adds
	// EnqueueUnitJobMany, KillUnitSubgroup and RemoveSubgroupFromUnit.
	// Between the measured releases the first release is upstream's as
	// far as known; the four measured ones are exact.
	"AttachProcessesToUnit":   {since: 238},
	"ListUnitFilesByPatterns": {since: 230},
	"FreezeUnit":              {since: 246},
	"ThawUnit":                {since: 246},
	"StartUnitWithFlags":      {since: 252},
	"EnqueueMarkedJobs":       {since: 252},
	"BindMountUnit":           {since: 248},
	"MountImageUnit":          {since: 248},
	"GetUnitByPIDFD":          {since: 257},
	"QueueSignalUnit":         {since: 257},
	"SoftReboot":              {since: 254},
	"StartAuxiliaryScope":     {since: 256, until: 262},
	"EnqueueUnitJobMany":      {since: 262},
	"KillUnitSubgroup":        {since: 262},
	"RemoveSubgroupFromUnit":  {since: 262},

	// Job modes.
	"mode:triggering":           {since: 250},
	"mode:restart-dependencies": {since: 254},
}

// has reports whether the modelled release offers name (see releases), or
// a backport of it.
func (m *manager) has(name string) bool {
	r := releases[name]
	if r.until != 0 && m.major >= r.until {
		return false
	}
	return r.since == 0 || m.major >= r.since || m.cfg.backports[name]
}

// hasFor is has for a property set on a unit of the given kind.
func (m *manager) hasFor(name, kind string) bool {
	r := releases[name]
	since := r.since
	if n, ok := r.sinceFor[kind]; ok {
		since = n
	}
	return since == 0 || m.major >= since || m.cfg.backports[name]
}

// hidden reports whether the modelled release leaves property name out of
// GetAll and introspection (while Get still answers it).
func (m *manager) hidden(name string) bool {
	h := releases[name].hiddenFrom
	return h != 0 && m.major >= h
}
