package sdbus

import (
	"context"
	"fmt"
)

// EffectiveLimit is a limit together with the unit that imposes it.
type EffectiveLimit struct {
	Limit
	// Source is the unit or slice whose own setting imposes the limit (the
	// innermost one if several do). It is "" when nothing limits, and when
	// the manager reports a stricter effective limit than any unit sets
	// (systemd caps memory limits at the physical memory).
	Source string
	// System says that Source is a unit of the system manager, above the
	// user manager whose unit was asked about (user@UID.service,
	// user-UID.slice, user.slice).
	System bool
}

// EffectiveLimits are the limits that apply to a unit once its ancestor
// slices are taken into account.
type EffectiveLimits struct {
	MemoryMax  EffectiveLimit
	MemoryHigh EffectiveLimit
	TasksMax   EffectiveLimit
	// CPUQuotaPerSecUSec is CPU time per second of wall time, in µs:
	// 1,000,000 is one CPU.
	CPUQuotaPerSecUSec EffectiveLimit
	// FromManager says that the memory and task limits are the manager's
	// own EffectiveMemoryMax, EffectiveMemoryHigh and EffectiveTasksMax;
	// otherwise sdbus computed them from the chain. The CPU quota is
	// always computed: systemd has no effective CPU quota.
	FromManager bool
	// Chain is the unit and its ancestor slices, innermost first.
	Chain []string
	// SystemChain is, for a unit of a user manager, the system manager's
	// units the user manager runs in, innermost first: user@UID.service,
	// user-UID.slice, user.slice, -.slice. It is empty for a unit of the
	// system manager.
	SystemChain []string
}

// EffectiveLimits returns the memory, task and CPU limits that apply to a
// unit (a service, scope or slice): the strictest over the unit and its
// ancestor slices, each with the unit that imposes it.
//
// Under systemd and cgroup v2 a process usually sits in a leaf scope whose
// own limits read "max" while the real limit sits on a pod or user slice
// further up; this is the limit that matters. When the manager has the
// EffectiveMemoryMax family (systemd 256, or a backport), those values are
// used for memory and tasks; otherwise, and for the CPU quota always, sdbus
// walks the slice chain and takes the minimum. Either way the result is
// systemd's view: limits written to cgroupfs behind systemd's back are not
// seen.
//
// A user manager (systemd --user) runs in the system manager's
// user@UID.service, below user-UID.slice and user.slice, where the system's
// limits on the user live; the user manager itself does not see them
// (its -.slice reads "max", 262's EffectiveMemoryMax the machine's memory).
// For a unit of a user manager EffectiveLimits continues there: it asks the
// system manager which unit owns the user manager's control group
// (GetUnitByControlGroup) and takes the strictest limit over both chains,
// marking the system's with System. The system manager is the Conn of
// WithSystemManager, else one dialed with ConnectSystem for the call (an
// unprivileged user may read these). When it cannot be read, the limits of
// the user manager's own chain are returned together with an error that
// says so, matching the cause: the real limits may be lower.
func (c *Conn) EffectiveLimits(ctx context.Context, unit string) (EffectiveLimits, error) {
	const op = "EffectiveLimits"
	out, _, err := c.chainLimits(ctx, unit)
	if err != nil {
		return EffectiveLimits{}, err
	}
	var cg string
	v, err := c.ManagerProperty(ctx, "ControlGroup")
	if err != nil {
		return EffectiveLimits{}, err
	}
	if err := v.Store(&cg); err != nil || cg == "" {
		return out, nil // the system manager (its ControlGroup is "")
	}
	above := func(err error, format string, args ...any) error {
		return &Error{Op: op, Unit: unit, Err: err, Message: fmt.Sprintf("the limits above the user manager, in the system manager's %s, "+
			"could not be read (the limits returned are the user manager's own; the real ones may be lower): %s", cg, fmt.Sprintf(format, args...))}
	}
	sys := c.cfg.system
	if sys == nil {
		if sys, err = ConnectSystem(ctx); err != nil {
			return out, above(err, "connecting to the system manager")
		}
		defer sys.Close()
	}
	owner, err := sys.UnitByControlGroup(ctx, cg)
	if err != nil {
		return out, above(err, "asking the system manager which unit owns it")
	}
	upper, ownerCG, err := sys.chainLimits(ctx, owner)
	if err != nil {
		return out, above(err, "reading %s", owner)
	}
	if ownerCG != cg {
		return out, above(ErrNoSuchUnit, "%s's control group is %q: not the same machine's manager", owner, ownerCG)
	}
	out.SystemChain = upper.Chain
	out.FromManager = out.FromManager && upper.FromManager
	for _, l := range []struct{ own, sys *EffectiveLimit }{
		{&out.MemoryMax, &upper.MemoryMax}, {&out.MemoryHigh, &upper.MemoryHigh},
		{&out.TasksMax, &upper.TasksMax}, {&out.CPUQuotaPerSecUSec, &upper.CPUQuotaPerSecUSec},
	} {
		if l.sys.Less(l.own.Limit) {
			*l.own = *l.sys
			l.own.System = true
		}
	}
	return out, nil
}

// chainLimits computes the effective limits of unit within its manager,
// and returns its control group too.
func (c *Conn) chainLimits(ctx context.Context, unit string) (EffectiveLimits, string, error) {
	const op = "EffectiveLimits"
	t, err := UnitTypeOf(unit)
	if err != nil {
		return EffectiveLimits{}, "", err
	}
	var own CgroupProperties
	switch t {
	case UnitTypeService:
		p, err := c.ServiceProperties(ctx, unit)
		if err != nil {
			return EffectiveLimits{}, "", err
		}
		own = p.CgroupProperties
	case UnitTypeScope:
		p, err := c.ScopeProperties(ctx, unit)
		if err != nil {
			return EffectiveLimits{}, "", err
		}
		own = p.CgroupProperties
	case UnitTypeSlice:
		p, err := c.SliceProperties(ctx, unit)
		if err != nil {
			return EffectiveLimits{}, "", err
		}
		own = p.CgroupProperties
	default:
		return EffectiveLimits{}, "", invalidArg(op, unit, "only services, scopes and slices have limits sdbus reads")
	}
	chain := []string{unit}
	props := []CgroupProperties{own}
	parent := own.Slice
	if t == UnitTypeSlice {
		parent, _ = SliceParent(unit)
	}
	if parent != "" {
		ancestors, err := SliceAncestors(parent)
		if err != nil {
			return EffectiveLimits{}, "", err
		}
		for _, s := range ancestors {
			p, err := c.SliceProperties(ctx, s)
			if err != nil {
				return EffectiveLimits{}, "", err
			}
			chain = append(chain, s)
			props = append(props, p.CgroupProperties)
		}
	}
	walk := func(get func(*CgroupProperties) Limit) EffectiveLimit {
		e := EffectiveLimit{Limit: Limit{Unlimited: true}}
		for i := range props {
			if l := get(&props[i]); l.Less(e.Limit) {
				e = EffectiveLimit{Limit: l, Source: chain[i]}
			}
		}
		return e
	}
	// fromManager takes the manager's value and finds who sets it.
	fromManager := func(v *Limit, get func(*CgroupProperties) Limit) EffectiveLimit {
		e := EffectiveLimit{Limit: *v}
		if v.Unlimited {
			return e
		}
		for i := range props {
			if l := get(&props[i]); !l.Unlimited && l.Value == v.Value {
				e.Source = chain[i]
				break
			}
		}
		return e
	}
	memMax := func(p *CgroupProperties) Limit { return p.MemoryMax }
	memHigh := func(p *CgroupProperties) Limit { return p.MemoryHigh }
	tasks := func(p *CgroupProperties) Limit { return p.TasksMax }
	out := EffectiveLimits{
		CPUQuotaPerSecUSec: walk(func(p *CgroupProperties) Limit { return p.CPUQuotaPerSecUSec }),
		Chain:              chain,
	}
	if own.EffectiveMemoryMax != nil && own.EffectiveMemoryHigh != nil && own.EffectiveTasksMax != nil {
		out.FromManager = true
		out.MemoryMax = fromManager(own.EffectiveMemoryMax, memMax)
		out.MemoryHigh = fromManager(own.EffectiveMemoryHigh, memHigh)
		out.TasksMax = fromManager(own.EffectiveTasksMax, tasks)
	} else {
		out.MemoryMax, out.MemoryHigh, out.TasksMax = walk(memMax), walk(memHigh), walk(tasks)
	}
	return out, own.ControlGroup, nil
}
