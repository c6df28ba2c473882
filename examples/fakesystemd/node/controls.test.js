// Node tests (node:test, built into Node 18 and later) with a fresh
// fakesystemd per test, driven through its control interface
// (io.github.sdbus_go.FakeSystemd: ScriptResult, ScriptDelay, Jobs, WaitIdle,
// GetCalls, ClearCalls) and checked against its call log file (--call-log).
//
//   FAKESYSTEMD=/path/to/fakesystemd node --test examples/fakesystemd/node/controls.test.js
//
// (FAKESYSTEMD unset: the fakesystemd on the PATH; `npm ci` in this directory
// first, for dbus-next.) No `fakesystemd run` is needed: each test starts
// `fakesystemd --socket` in a temporary directory and connects to it.
//
// The program under test is startWorker(): it asks systemd for a transient
// service with a memory limit and reports how its start job ended. It takes
// its bus connection as an argument, so each test can hand it one to its own
// fake. dbus-next's systemBus() always connects to DBUS_SYSTEM_BUS_ADDRESS
// (or the system's socket) and takes no address; a connection to any address
// is sessionBus({ busAddress }), whatever the bus is (a new connection each
// call: dbus-next has no process-wide singleton, unlike dbus-python's
// dbus.SystemBus()).
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const dbus = require('dbus-next');

const SYSTEMD = 'org.freedesktop.systemd1';
const MANAGER_PATH = '/org/freedesktop/systemd1';
const MANAGER = 'org.freedesktop.systemd1.Manager';
const TIMEOUT_MS = 30000;
const MiB = 1024 * 1024;

// call calls a method and resolves to the reply's body; a D-Bus error
// rejects with a DBusError whose type is the error name.
async function call(bus, destination, objectPath, iface, member, signature = '', body = []) {
  const reply = await bus.call(new dbus.Message({ destination, path: objectPath, interface: iface, member, signature, body }));
  return reply.body;
}

// ---------------------------------------------------------------------------
// The program under test.

// startWorker starts name as a transient service running /bin/sleep 600,
// limited to memoryMax bytes, and resolves to its start job's result ("done",
// "failed", ...), from systemd's JobRemoved signal.
async function startWorker(bus, name, memoryMax) {
  const results = new Map();
  let job = null;
  let wake = null;
  const onMessage = (msg) => {
    if (msg.type === dbus.MessageType.SIGNAL && msg.interface === MANAGER && msg.member === 'JobRemoved') {
      const [, jobPath, , result] = msg.body;
      results.set(jobPath, result);
      if (jobPath === job && wake) wake();
    }
  };
  // Listen before starting: the job may end before StartTransientUnit's reply.
  bus.on('message', onMessage);
  try {
    const properties = [
      ['MemoryMax', new dbus.Variant('t', BigInt(memoryMax))], // 't' (uint64) values are BigInts
      ['ExecStart', new dbus.Variant('a(sasb)', [['/bin/sleep', ['/bin/sleep', '600'], false]])],
    ];
    [job] = await call(bus, SYSTEMD, MANAGER_PATH, MANAGER, 'StartTransientUnit', 'ssa(sv)a(sa(sv))',
      [name, 'fail', properties, []]);
    if (!results.has(job)) {
      await new Promise((resolve, reject) => {
        wake = resolve;
        setTimeout(() => reject(new Error(`no JobRemoved for ${job} in ${TIMEOUT_MS} ms`)), TIMEOUT_MS).unref();
      });
    }
    return results.get(job);
  } finally {
    bus.removeListener('message', onMessage);
  }
}

// ---------------------------------------------------------------------------
// The fixture: one fake per test.

// startFake starts fakesystemd for test t and resolves to a fake: its bus
// connection (subscribed to systemd's signals), control(), calls() and
// loggedCalls(). Everything is stopped and removed when t ends (t.after).
async function startFake(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fakesystemd-test-'));
  const callLog = path.join(dir, 'calls.jsonl');
  const args = ['--socket', path.join(dir, 'bus'), '--print-address', '--call-log', callLog];
  // As systemd, the fake lets only root start units; a test run as a normal
  // user stands in for a program that runs as root.
  if (process.geteuid() !== 0) args.push('--allow-unprivileged');
  const proc = spawn(process.env.FAKESYSTEMD || 'fakesystemd', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => proc.on('close', resolve));
  t.after(async () => {
    proc.kill('SIGTERM'); // it closes its socket and exits 0
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // fakesystemd prints the address once it accepts connections (nothing if
  // it failed: it said why on stderr and exited).
  const address = await new Promise((resolve, reject) => {
    proc.on('error', reject); // not found, not executable
    readline.createInterface({ input: proc.stdout }).once('line', resolve);
    exited.then((status) => reject(new Error(`fakesystemd exited with status ${status}`)));
  });

  const bus = dbus.sessionBus({ busAddress: address }); // a connection of its own, to this fake
  t.after(() => bus.disconnect());
  const control = (member, signature = '', body = []) => call(bus, 'io.github.sdbus_go.FakeSystemd',
    '/io/github/sdbus_go/FakeSystemd', 'io.github.sdbus_go.FakeSystemd1', member, signature, body);

  // Systemd's signals reach clients that ask for them.
  await call(bus, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'AddMatch', 's',
    [`type='signal',sender='${SYSTEMD}',interface='${MANAGER}',path='${MANAGER_PATH}'`]);
  await call(bus, SYSTEMD, MANAGER_PATH, MANAGER, 'Subscribe');

  return {
    bus,
    control,
    // The calls the fake keeps in memory (GetCalls), oldest first; '' selects all.
    calls: async (member = '', unit = '') => JSON.parse((await control('GetCalls', 'ss', [member, unit]))[0]),
    // Every call of the call log file, ClearCalls or not.
    loggedCalls: () => fs.readFileSync(callLog, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)),
  };
}

// ---------------------------------------------------------------------------
// The tests.

test('a failed start is reported, with the settings the program sent', async (t) => {
  const fake = await startFake(t);
  // The next start of worker-1.service fails, as if its program exited 1.
  await fake.control('ScriptResult', 'ssu', ['worker-*.service', 'failed', 1]);

  assert.equal(await startWorker(fake.bus, 'worker-1.service', 256 * MiB), 'failed');

  // The fake's view of the unit: loaded, load state, active state, sub
  // state, result, transient, job, PIDs.
  const [loaded, , active, , result, transient] = await fake.control('Unit', 's', ['worker-1.service']);
  assert.deepEqual([loaded, active, result, transient], [true, 'failed', 'exit-code', true]);

  // What the program asked for: one StartTransientUnit, with the memory
  // limit it was given, as a D-Bus uint64.
  const calls = await fake.calls('StartTransientUnit', 'worker-1.service');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].args[0], 'worker-1.service');
  assert.deepEqual(calls[0].args[2].find(([name]) => name === 'MemoryMax'), ['MemoryMax', { type: 't', value: 256 * MiB }]);
  assert.equal(calls[0].reply.error, ''); // the call succeeded; its job failed

  // ClearCalls empties the fake's memory; the call log file keeps it all.
  await fake.control('ClearCalls');
  assert.deepEqual(await fake.calls(), []);
  assert.deepEqual(fake.loggedCalls().filter((c) => c.member === 'StartTransientUnit').map((c) => c.seq), [calls[0].seq]);
});

test('a job held back by ScriptDelay is queued until it ends', async (t) => {
  const fake = await startFake(t);
  // Jobs of slow-*.service stay queued half a second before they run.
  await fake.control('ScriptDelay', 'sdd', ['slow-*.service', 0.5, 0]);

  const started = startWorker(fake.bus, 'slow-1.service', 64 * MiB);
  // Once StartTransientUnit was answered, the job is queued: one job.
  while ((await fake.calls('StartTransientUnit')).every((c) => c.reply === null)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual(await fake.control('Jobs'), [1]);
  await fake.control('WaitIdle', 'd', [10]); // until no job is queued or running
  assert.deepEqual(await fake.control('Jobs'), [0]);
  assert.equal(await started, 'done');

  // This test's fake is new: no call of the test above, and its numbers
  // start at 1 again (the fake's first call, the fixture's Subscribe).
  assert.deepEqual(fake.loggedCalls().map((c) => [c.seq, c.member]), [[1, 'Subscribe'], [2, 'StartTransientUnit']]);
});
