package sdbus

// TrackedJobs reports how many job paths c tracks (pending or kept for
// calls in flight) and how many of them are finished, for tests that
// check that tracking state is freed.
func TrackedJobs(c *Conn) (jobs, retired int) { return c.sess.Load().jobs.size() }

// IdempotentMethod reports whether a Manager method is sent again after
// a lost reply.
func IdempotentMethod(method string) bool { return idempotentMethod(method) }
