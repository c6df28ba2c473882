// The Node client of the differential suite: dbus-next (npm) as its README
// shows it, with proxy objects built from introspection data, Subscribe,
// and the JobRemoved signal of the job it started. A second connection that
// never subscribes counts the JobRemoved signals it receives for that job.
// Prints steps as scenario.sh does: "=== dbus-next/STEP", then what the
// step saw (values, or "error NAME: MESSAGE").
'use strict';

const dbus = require('dbus-next');
const { Variant } = dbus;

const SD = 'org.freedesktop.systemd1';
const MGR = 'org.freedesktop.systemd1.Manager';

async function main() {
  const bus = dbus.systemBus();
  const observer = dbus.systemBus();
  const obj = await bus.getProxyObject(SD, '/org/freedesktop/systemd1');
  const manager = obj.getInterface(MGR);
  const removed = new Map();
  manager.on('JobRemoved', (id, job, unit, result) => removed.set(job, `JobRemoved unit=${unit} result=${result}`));

  // The observer adds a match rule for JobRemoved but never calls Subscribe.
  const seenByObserver = new Map();
  await observer.call(new dbus.Message({
    destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus',
    member: 'AddMatch', signature: 's', body: [`type='signal',sender='${SD}',interface='${MGR}',member='JobRemoved'`],
  }));
  const quiet = [];
  observer.on('message', (msg) => {
    if (msg.type === dbus.MessageType.SIGNAL && msg.member === 'JobRemoved') {
      seenByObserver.set(msg.body[1], (seenByObserver.get(msg.body[1]) || 0) + 1);
    }
    if (msg.type === dbus.MessageType.SIGNAL && (msg.member === 'JobNew' || msg.member === 'JobRemoved') && msg.body[2] === 'js-quiet.service') {
      quiet.push(msg.member);
    }
  });
  await observer.call(new dbus.Message({
    destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus',
    member: 'AddMatch', signature: 's', body: [`type='signal',sender='${SD}',interface='${MGR}',member='JobNew'`],
  }));

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  async function waitJob(job) {
    for (let i = 0; i < 500 && !removed.has(job); i++) await sleep(20);
    return removed.get(job) || 'no JobRemoved for the job within 10 s';
  }
  async function props(unit, names, iface = 'org.freedesktop.systemd1.Unit') {
    const path = await manager.GetUnit(unit);
    const u = await bus.getProxyObject(SD, path);
    const p = u.getInterface('org.freedesktop.DBus.Properties');
    const out = [];
    for (const n of names) out.push(`${n}=${(await p.Get(iface, n)).value}`);
    return out.join(' ');
  }
  async function step(name, fn) {
    console.log(`=== dbus-next/${name}`);
    try {
      const out = await fn();
      if (out !== undefined && out !== null) console.log(String(out));
    } catch (e) {
      console.log(e.type ? `error ${e.type}: ${e.text}` : `exception ${e.message}`);
    }
  }
  const exec = (argv) => new Variant('a(sasb)', [[argv[0], argv, false]]);
  let lastJob = null;
  const startAndWait = async (p) => { lastJob = await p; return waitJob(lastJob); };

  // Nobody is subscribed yet, and busctl, which asks for the job (a 1 s
  // oneshot), hangs up at once: which job signals does the observer see?
  await step('signals-nobody-subscribed', async () => {
    require('child_process').execFileSync('busctl', ['call', SD, '/org/freedesktop/systemd1', MGR, 'StartTransientUnit',
      'ssa(sv)a(sa(sv))', 'js-quiet.service', 'replace', '2', 'Type', 's', 'oneshot',
      'ExecStart', 'a(sasb)', '1', '/bin/sleep', '2', '/bin/sleep', '1', 'false', '0']);
    await sleep(2500);
    return `observer saw [${quiet.join(' ')}]`;
  });
  await step('subscribe', () => manager.Subscribe());
  await step('start-transient', () => startAndWait(manager.StartTransientUnit('js-sleep.service', 'replace',
    [['ExecStart', exec(['/bin/sleep', '300'])]], [])));
  await step('props', () => props('js-sleep.service', ['Id', 'LoadState', 'ActiveState', 'SubState']));
  await step('restart', () => startAndWait(manager.RestartUnit('js-sleep.service', 'replace')));
  await step('stop', () => startAndWait(manager.StopUnit('js-sleep.service', 'replace')));
  await step('props-after-stop', () => props('js-sleep.service', ['ActiveState', 'SubState']));
  await step('start-failing', () => startAndWait(manager.StartTransientUnit('js-fail.service', 'replace',
    [['Type', new Variant('s', 'oneshot')], ['ExecStart', exec(['/bin/false'])]], [])));
  await step('props-failing', () => props('js-fail.service', ['Result'], 'org.freedesktop.systemd1.Service'));
  await step('list-units-failed', async () => (await manager.ListUnitsFiltered(['failed']))
    .filter((u) => u[0].startsWith('js-')).map((u) => `${u[0]} ${u[2]} ${u[3]} ${u[4]}`).join('\n'));
  await step('reset-failed', () => manager.ResetFailedUnit('js-fail.service'));
  await step('get-unit-after-reset', () => manager.GetUnit('js-fail.service'));
  await step('start-slow-oneshot', () => startAndWait(manager.StartTransientUnit('js-slow.service', 'replace',
    [['Type', new Variant('s', 'oneshot')], ['RemainAfterExit', new Variant('b', true)], ['ExecStart', exec(['/bin/sleep', '1'])]], [])));
  await step('props-slow', () => props('js-slow.service', ['ActiveState', 'SubState']));
  await step('observer-without-subscribe', async () => { await sleep(300); return `observer saw ${seenByObserver.get(lastJob) || 0} JobRemoved for it`; });
  await step('unit-object-methods', async () => {
    const u = await bus.getProxyObject(SD, await manager.GetUnit('js-slow.service'));
    return Object.keys(u.interfaces).sort().join(' ');
  });
  await step('get-unit-missing', () => manager.GetUnit('js-nosuch.service'));
  await step('unsubscribe', () => manager.Unsubscribe());
  bus.disconnect();
  observer.disconnect();
}

main().catch((e) => { console.log(`exception ${e.stack}`); process.exit(1); });
