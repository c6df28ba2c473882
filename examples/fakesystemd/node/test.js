// A Node test against fakesystemd through dbus-next (npm), unmodified.
// It uses the system bus as any program does; run it where the fake is the
// system's systemd:
//
//   fakesystemd run --script examples/fakesystemd/script.json -- node examples/fakesystemd/node/test.js
//
// as root; as another user add --allow-unprivileged, or the fake refuses the
// calls that start units, as systemd refuses them a normal user.
//
// It uses dbus-next's message-level API, with the signatures written out,
// rather than proxy objects built from introspection data.
'use strict';

const dbus = require('dbus-next');

const SYSTEMD = 'org.freedesktop.systemd1';
const MANAGER_PATH = '/org/freedesktop/systemd1';
const MANAGER = 'org.freedesktop.systemd1.Manager';

// call calls a method and resolves to the reply's body; a D-Bus error
// rejects with a DBusError whose type is the error name.
async function call(bus, path, iface, member, signature = '', body = []) {
  const reply = await bus.call(new dbus.Message({ destination: SYSTEMD, path, interface: iface, member, signature, body }));
  return reply.body;
}

// startAndWait starts unit and resolves to its job's result, from JobRemoved.
async function startAndWait(bus, unit) {
  const results = new Map();
  let job = null;
  let wake = null;
  const onMessage = (msg) => {
    if (msg.type === dbus.MessageType.SIGNAL && msg.interface === MANAGER && msg.member === 'JobRemoved') {
      const [, path, , result] = msg.body;
      results.set(path, result);
      if (path === job && wake) wake();
    }
  };
  // Listen before starting: the job may end before StartUnit's reply.
  bus.on('message', onMessage);
  try {
    [job] = await call(bus, MANAGER_PATH, MANAGER, 'StartUnit', 'ss', [unit, 'replace']);
    if (!results.has(job)) {
      await new Promise((resolve, reject) => {
        wake = resolve;
        setTimeout(() => reject(new Error(`no JobRemoved for ${job} in 30s`)), 30000).unref();
      });
    }
    return results.get(job);
  } finally {
    bus.removeListener('message', onMessage);
  }
}

async function unitProperty(bus, unit, iface, name) {
  const [path] = await call(bus, MANAGER_PATH, MANAGER, 'LoadUnit', 's', [unit]);
  const [value] = await call(bus, path, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [iface, name]);
  return value.value;
}

async function main() {
  const bus = dbus.systemBus();
  await call(bus, MANAGER_PATH, MANAGER, 'Subscribe');
  await bus.call(new dbus.Message({
    destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus',
    member: 'AddMatch', signature: 's',
    body: [`type='signal',sender='${SYSTEMD}',interface='${MANAGER}',member='JobRemoved',path='${MANAGER_PATH}'`],
  }));
  const failures = [];
  const check = (what, got, want) => {
    if (got !== want) failures.push(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  };

  check('start app.service', await startAndWait(bus, 'app.service'), 'done');
  check('app.service ActiveState',
    await unitProperty(bus, 'app.service', 'org.freedesktop.systemd1.Unit', 'ActiveState'), 'active');

  // The script fails flaky.service's first start: reset it and retry.
  check('first start of flaky.service', await startAndWait(bus, 'flaky.service'), 'failed');
  check('flaky.service Result',
    await unitProperty(bus, 'flaky.service', 'org.freedesktop.systemd1.Service', 'Result'), 'exit-code');
  await call(bus, MANAGER_PATH, MANAGER, 'ResetFailedUnit', 's', ['flaky.service']);
  check('second start of flaky.service', await startAndWait(bus, 'flaky.service'), 'done');

  // Errors are systemd's D-Bus errors.
  try {
    await call(bus, MANAGER_PATH, MANAGER, 'GetUnit', 's', ['no-such.service']);
    failures.push('GetUnit of an unknown unit succeeded');
  } catch (e) {
    check('GetUnit error', e.type, 'org.freedesktop.systemd1.NoSuchUnit');
  }

  bus.disconnect();
  for (const f of failures) console.error(`node example: FAIL: ${f}`);
  if (failures.length > 0) process.exit(1);
  console.log('node example: ok');
}

main().catch((e) => {
  console.error(`node example: FAIL: ${e.stack || e}`);
  process.exit(1);
});
