package sdbus

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Sentinel errors. Test for them with errors.Is; every error an sdbus
// operation returns is an *Error (or, for a job's result, a *JobError) that
// matches the sentinels listed in its documentation.
var (
	// ErrUnitExists: org.freedesktop.systemd1.UnitExists. A unit of that
	// name is already loaded (often a failed transient unit that lingers).
	ErrUnitExists = errors.New("unit exists")
	// ErrNoSuchUnit: org.freedesktop.systemd1.NoSuchUnit, also returned by
	// typed reads when a unit's LoadState is not-found, and
	// org.freedesktop.DBus.Error.FileNotFound (GetUnitFileState of a unit
	// without a unit file).
	ErrNoSuchUnit = errors.New("no such unit")
	// ErrNoSuchJob: org.freedesktop.systemd1.NoSuchJob (the job has ended).
	ErrNoSuchJob = errors.New("no such job")
	// ErrUnitMasked: org.freedesktop.systemd1.UnitMasked.
	ErrUnitMasked = errors.New("unit is masked")
	// ErrJobTypeNotApplicable: org.freedesktop.systemd1.JobTypeNotApplicable.
	ErrJobTypeNotApplicable = errors.New("job type not applicable")
	// ErrTransactionIsDestructive: org.freedesktop.systemd1.TransactionIsDestructive
	// (a job mode such as "fail" refused to replace a conflicting job).
	ErrTransactionIsDestructive = errors.New("transaction is destructive")
	// ErrOnlyByDependency: org.freedesktop.systemd1.OnlyByDependency
	// (RefuseManualStart= or RefuseManualStop=).
	ErrOnlyByDependency = errors.New("operation refused, unit may only be started or stopped by dependency")
	// ErrNoUnitForPID: org.freedesktop.systemd1.NoUnitForPID.
	ErrNoUnitForPID = errors.New("no unit for PID")
	// ErrNoSuchProcess: org.freedesktop.systemd1.NoSuchProcess, and
	// org.freedesktop.DBus.Error.UnixProcessIdUnknown, which systemd answers
	// for a PID that does not exist (StartTransientUnit with PIDs=).
	ErrNoSuchProcess = errors.New("no such process")
	// ErrBadUnitSetting: org.freedesktop.systemd1.BadUnitSetting or LoadFailed.
	ErrBadUnitSetting = errors.New("bad unit setting")
	// ErrAccessDenied: org.freedesktop.DBus.Error.AccessDenied.
	ErrAccessDenied = errors.New("access denied")
	// ErrInteractiveAuthorizationRequired:
	// org.freedesktop.DBus.Error.InteractiveAuthorizationRequired.
	ErrInteractiveAuthorizationRequired = errors.New("interactive authorization required")
	// ErrNotSupported: the manager does not know the method or property
	// (org.freedesktop.DBus.Error.UnknownMethod, UnknownProperty,
	// UnknownInterface, PropertyReadOnly, NotSupported). systemd answers an
	// unknown or unsettable property with PropertyReadOnly.
	ErrNotSupported = errors.New("not supported by this manager")
	// ErrInvalidArgs: org.freedesktop.DBus.Error.InvalidArgs, and every
	// argument sdbus rejects before sending anything (then Error.Name is
	// empty).
	ErrInvalidArgs = errors.New("invalid arguments")
	// ErrServiceUnknown: nobody owns org.freedesktop.systemd1 on the bus
	// (org.freedesktop.DBus.Error.ServiceUnknown, NameHasNoOwner).
	ErrServiceUnknown = errors.New("systemd is not on the bus")
	// ErrTimeout: the bus gave up waiting for systemd
	// (org.freedesktop.DBus.Error.NoReply, TimedOut) while systemd stayed
	// on the bus. A NoReply because systemd left the bus without reading
	// the call (daemon-reexec) is not a timeout: an idempotent call is
	// sent again, any other fails with ErrOutcomeUnknown (see
	// ReconnectPolicy). A context deadline is reported as
	// context.DeadlineExceeded instead.
	ErrTimeout = errors.New("no reply from systemd")
	// ErrUnreachable: Connect found nothing listening at the address: no
	// such socket (for a user manager: no login session and no lingering,
	// or XDG_RUNTIME_DIR pointing elsewhere), or a socket nobody accepts
	// on. The *Error's message says what to check; the dial error is kept
	// too (errors.Is(err, syscall.ENOENT)).
	ErrUnreachable = errors.New("nothing listens at the address")
	// ErrAuthRejected: the bus or the manager refused to authenticate the
	// caller, by rejecting it or by closing the connection during the
	// authentication: a user's bus and a user manager accept their own
	// user (and the bus root), systemd's private socket root only.
	ErrAuthRejected = errors.New("authentication rejected")
	// ErrDisconnected: the connection to the bus or to systemd was lost.
	// Every pending Wait ends with it.
	ErrDisconnected = errors.New("connection lost")
	// ErrClosed: the Conn was closed by Close. Pending waits end with it.
	ErrClosed = errors.New("connection closed")
	// ErrOutcomeUnknown: the connection was lost, or systemd left the bus
	// (daemon-reexec), while a call that is not safe to repeat (StartUnit,
	// StartTransientUnit, KillUnit, ...) waited for its reply, so systemd
	// may or may not have carried it out. It also matches ErrDisconnected.
	// Conn.Reconcile tells what happened.
	ErrOutcomeUnknown = errors.New("outcome unknown: connection lost before the reply")
	// ErrJobFailed is matched by every *JobError: the job ended with a
	// result other than done or skipped.
	ErrJobFailed = errors.New("job failed")
)

// dbusErrorSentinel maps a D-Bus error name to the sentinel it matches, or
// nil.
func dbusErrorSentinel(name string) error {
	const sd, fd = "org.freedesktop.systemd1.", "org.freedesktop.DBus.Error."
	switch name {
	case sd + "UnitExists":
		return ErrUnitExists
	case sd + "NoSuchUnit", fd + "FileNotFound":
		return ErrNoSuchUnit
	case sd + "NoSuchJob":
		return ErrNoSuchJob
	case sd + "UnitMasked":
		return ErrUnitMasked
	case sd + "JobTypeNotApplicable":
		return ErrJobTypeNotApplicable
	case sd + "TransactionIsDestructive":
		return ErrTransactionIsDestructive
	case sd + "OnlyByDependency":
		return ErrOnlyByDependency
	case sd + "NoUnitForPID":
		return ErrNoUnitForPID
	case sd + "NoSuchProcess", fd + "UnixProcessIdUnknown":
		return ErrNoSuchProcess
	case sd + "BadUnitSetting", sd + "LoadFailed":
		return ErrBadUnitSetting
	case fd + "AccessDenied":
		return ErrAccessDenied
	case fd + "InteractiveAuthorizationRequired":
		return ErrInteractiveAuthorizationRequired
	case fd + "UnknownMethod", fd + "UnknownProperty", fd + "UnknownInterface",
		fd + "PropertyReadOnly", fd + "NotSupported":
		return ErrNotSupported
	case fd + "InvalidArgs":
		return ErrInvalidArgs
	case fd + "ServiceUnknown", fd + "NameHasNoOwner":
		return ErrServiceUnknown
	case fd + "NoReply", fd + "TimedOut", fd + "Timeout":
		return ErrTimeout
	case fd + "Disconnected":
		return ErrDisconnected
	}
	return nil
}

// Error is the error every sdbus operation returns, apart from the result
// of a job (see JobError).
//
// It matches, with errors.Is, the sentinel that corresponds to the D-Bus
// error name (ErrUnitExists for org.freedesktop.systemd1.UnitExists, ...),
// whatever Err matches (context.DeadlineExceeded, ErrDisconnected, ...), and
// with errors.As a dbus.Error value target when systemd answered with an
// error reply.
type Error struct {
	// Op is the operation: the public call ("EnsureTransientUnit",
	// "Job.Wait", "WaitUnitState"), a D-Bus method ("StartTransientUnit",
	// "GetUnit"), "Get"/"GetAll" with the property or interface, or
	// "connect".
	Op string
	// Unit is the unit the operation concerned, if any.
	Unit string
	// Name is the D-Bus error name when the manager or the bus answered with
	// an error, e.g. "org.freedesktop.systemd1.UnitExists"; empty otherwise.
	Name string
	// Message is the human-readable text of the D-Bus error, or of a local
	// validation failure.
	Message string
	// Err is the cause: a dbus.Error value, a context error, one of the
	// sentinels above, or a transport error.
	Err error
}

var _ error = (*Error)(nil)

func (e *Error) Error() string {
	if e == nil {
		return "sdbus: <nil>"
	}
	var b strings.Builder
	b.WriteString("sdbus: ")
	b.WriteString(e.Op)
	if e.Unit != "" {
		b.WriteString(" ")
		b.WriteString(e.Unit)
	}
	b.WriteString(": ")
	switch {
	case e.Name != "" && e.Message != "":
		fmt.Fprintf(&b, "%s (%s)", e.Message, e.Name)
	case e.Name != "":
		b.WriteString(e.Name)
	case e.Message != "" && e.Err != nil:
		fmt.Fprintf(&b, "%s: %s", e.Message, causeText(e.Err))
	case e.Message != "":
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(causeText(e.Err))
	default:
		b.WriteString("unknown error")
	}
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Is reports whether target is the sentinel for e's D-Bus error name, unless
// Err is sdbus's own classification of that answer (a NoReply because
// systemd left the bus matches ErrOutcomeUnknown or ErrDisconnected, not
// ErrTimeout); an unknown outcome is also a disconnection.
func (e *Error) Is(target error) bool {
	if e == nil {
		return false
	}
	if e.Err == ErrOutcomeUnknown && target == ErrDisconnected {
		return true
	}
	switch e.Err.(type) {
	case nil, dbus.Error:
		return e.Name != "" && target == dbusErrorSentinel(e.Name)
	}
	// sdbus classified the answer itself (a NoReply because systemd left
	// the bus is not a timeout): Err decides.
	return false
}

// outcomeUnknown marks the cause of an error after which the outcome of
// what was asked is unknown (a job that may still run): it matches
// ErrOutcomeUnknown, and whatever its cause matches.
type outcomeUnknown struct{ cause error }

func (e outcomeUnknown) Error() string        { return e.cause.Error() }
func (e outcomeUnknown) Unwrap() error        { return e.cause }
func (e outcomeUnknown) Is(target error) bool { return target == ErrOutcomeUnknown }

// causeText is the text of an error wrapped in an *Error, without the
// "sdbus: " prefix when it is an sdbus error itself.
func causeText(err error) string {
	return strings.TrimPrefix(err.Error(), "sdbus: ")
}

// JobError is the error Job.Wait returns when a job ended with a result
// other than JobDone or JobSkipped. It matches ErrJobFailed.
type JobError struct {
	// Unit is the unit the job was for.
	Unit string
	// JobID is the job's numeric id.
	JobID uint32
	// Result is the job's result, e.g. JobFailed or JobDependency.
	Result JobResult
}

var _ error = (*JobError)(nil)

func (e *JobError) Error() string {
	if e == nil {
		return "sdbus: <nil>"
	}
	return fmt.Sprintf("sdbus: job %d for %s: %s", e.JobID, e.Unit, e.Result.describe(e.Unit))
}

// Is reports whether target is ErrJobFailed.
func (e *JobError) Is(target error) bool { return target == ErrJobFailed }

// invalidArg returns the error for an argument rejected before anything was
// sent. It matches ErrInvalidArgs.
func invalidArg(op, unit, format string, args ...any) error {
	return &Error{Op: op, Unit: unit, Message: fmt.Sprintf(format, args...), Err: ErrInvalidArgs}
}

// callError converts an error from a D-Bus call into an *Error. gone is the
// cause to report when the error came from the connection itself rather
// than from the peer (ErrClosed, ErrDisconnected, or nil while the
// connection is up).
func callError(op, unit string, err error, gone error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var re refusedError
	if errors.As(err, &re) {
		return &Error{Op: op, Unit: unit, Message: "D-Bus cannot carry the call (" + re.Error() + "); nothing was sent", Err: ErrInvalidArgs}
	}
	var me mismatchError
	if errors.As(err, &me) {
		return &Error{Op: op, Unit: unit, Message: "unexpected reply from systemd", Err: me.error}
	}
	var de dbus.Error
	if errors.As(err, &de) {
		msg := ""
		if len(de.Body) > 0 {
			msg, _ = de.Body[0].(string)
		}
		return &Error{Op: op, Unit: unit, Name: de.Name, Message: msg, Err: de}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Op: op, Unit: unit, Err: err}
	}
	if gone != nil {
		return &Error{Op: op, Unit: unit, Err: gone}
	}
	if errors.Is(err, dbus.ErrClosed) {
		return &Error{Op: op, Unit: unit, Err: ErrDisconnected}
	}
	return &Error{Op: op, Unit: unit, Err: err}
}
