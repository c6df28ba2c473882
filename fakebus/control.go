package fakebus

// Faults in the life of client connections, on demand.

// DropAfterReply ends the connection of each of the next n calls of the
// method member, right after its reply: the reply (and whatever was
// queued before it) reaches the client, then the connection is closed and
// nothing sent later reaches it. It counts calls on every connection, to
// the bus driver (Hello, AddMatch, GetNameOwner, ...) as well as to the
// manager (Subscribe, GetUnit, StartUnit, ...); error replies count too.
// A test arms it once a client is set up to cut the client's next
// connection right after that call, e.g. a reconnecting client's second
// connection after its AddMatch. n <= 0 disarms it for member.
func (s *Server) DropAfterReply(member string, n int) { s.bus.DropAfterReply(member, n) }

// Clients returns the number of client connections the fake serves (bus
// and private, authenticated). A connection that ended is no longer
// counted once the manager has forgotten it: its subscription and its
// part in the jobs it requested.
func (s *Server) Clients() int { return len(s.bus.Peers()) }
