package sdbus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The errors of connecting: what went wrong, as a sentinel, and what to
// check, in the message.
//
//   - Dialing: no socket at the path (ENOENT, ENOTDIR) or nobody accepting
//     on it (ECONNREFUSED) is ErrUnreachable; no permission to connect
//     (EACCES, EPERM) is ErrAccessDenied.
//   - Authentication: the peer answering REJECTED to every mechanism, or
//     closing the connection before it accepted the caller (EOF, EPIPE,
//     ECONNRESET; what systemd's private socket does to a caller that is
//     not root, on 247), is ErrAuthRejected.
//
// The cause is kept as well: errors.Is(err, syscall.ENOENT) still holds.

// dialFailed is the error of a dial of address that failed with err.
func dialFailed(address string, err error) error {
	var sentinel error
	var hint string
	switch {
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ECONNREFUSED):
		sentinel, hint = ErrUnreachable, "is the manager (or bus) running, and is this its address?"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		sentinel, hint = ErrAccessDenied, "the socket's permissions exclude uid "+strconv.Itoa(os.Geteuid())+
			" (systemd's private socket is root's, a user manager's its user's)"
	}
	if sentinel == nil {
		return &Error{Op: "connect", Message: address, Err: err}
	}
	return &Error{Op: "connect", Message: address + ": " + hint, Err: fmt.Errorf("%w: %w", sentinel, err)}
}

// authFailed is the error of an authentication (or Hello) on address that
// failed with err.
func authFailed(address string, err error) error {
	rejected := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		strings.HasPrefix(err.Error(), "dbus: authentication")
	if !rejected || isCtxErr(err) {
		return &Error{Op: "connect", Message: address, Err: err}
	}
	return &Error{Op: "connect", Message: address + ": the peer refused uid " + strconv.Itoa(os.Geteuid()) +
		" (a user's bus and manager accept that user, systemd's private socket root)",
		Err: fmt.Errorf("%w: %w", ErrAuthRejected, err)}
}

// userUnreachable adds to err, the failure of ConnectUser to reach
// address, where the address came from and what a user manager needs.
func userUnreachable(err error, address string, uid int) error {
	var e *Error
	if !errors.Is(err, ErrUnreachable) || !errors.As(err, &e) {
		return err
	}
	from := "derived from uid " + strconv.Itoa(uid)
	switch {
	case os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" && !strings.HasSuffix(address, "/systemd/private"):
		from = "from DBUS_SESSION_BUS_ADDRESS"
	case os.Getenv("XDG_RUNTIME_DIR") != "":
		from = "from XDG_RUNTIME_DIR=" + os.Getenv("XDG_RUNTIME_DIR")
	}
	dir := "/run/user/" + strconv.Itoa(uid)
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		dir = d
	}
	state := "exists"
	if _, serr := os.Stat(dir); serr != nil {
		state = "does not exist"
	}
	f := *e
	f.Message = fmt.Sprintf("%s [address %s; runtime directory %s %s; a user manager runs while the user has a login session, or always with lingering: loginctl enable-linger %d]",
		e.Message, from, dir, state, uid)
	return &f
}
