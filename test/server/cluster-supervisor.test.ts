import cluster from 'node:cluster';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createLogger } from '../../server/logger.js';
import { WorkerSupervisor } from '../../server/cluster/supervisor.js';

// The test process is the primary; its workers are test/helpers/cluster-worker.ts, real processes.
// NOTE: without tap's process-info hook (NODE_OPTIONS, inherited at fork), which reports every
// worker's exit as code 0 and so would hide the codes these tests check.
process.env.NODE_OPTIONS = '';
const exec = path.join(path.dirname(fileURLToPath(import.meta.url)), '../helpers/cluster-worker.js');

function logs() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(String(chunk)) as Record<string, unknown>); done(); } });
  return { logger: createLogger('info', stream), lines };
}

const until = async (condition: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

t.test('a worker that dies before it serves fails the start, and the others are stopped', async (t) => {
  cluster.setupPrimary({ exec, args: ['die-at-start'], execArgv: [] });
  const { logger } = logs();
  const supervisor = new WorkerSupervisor({ count: 2, port: 0, logger });
  await t.rejects(supervisor.start(), { name: 'WorkerStartError', message: /^worker \d+ \(pid \d+\) exited \(code 1\) before it served$/ });
  t.same(supervisor.pids(), [], 'nothing left running');
});

t.test('a crash loop is replaced with a doubling back-off, and logged', async (t) => {
  cluster.setupPrimary({ exec, args: ['crash-after-ready'], execArgv: [] });
  const { logger, lines } = logs();
  const supervisor = new WorkerSupervisor({ count: 1, port: 0, logger, backoff: { initialMs: 50, maxMs: 200, healthyMs: 60_000 } });
  await supervisor.start();
  const replaced = () => lines.filter((line) => typeof line.restartInMs === 'number');
  t.ok(await until(() => replaced().length >= 4), 'replaced again and again');
  await supervisor.stop();
  t.same(replaced().slice(0, 4).map((line) => line.restartInMs), [50, 100, 200, 200], 'each consecutive failure doubles the delay, up to the cap');
  t.same(replaced().slice(0, 4).map((line) => line.exitCode), [3, 3, 3, 3]);
  t.match(String(replaced()[0]!.msg), /^worker \d+ exited unexpectedly \(code 3\); replacing it in 50 ms$/);
});

t.test('a worker that does not drain is killed once the stop times out', async (t) => {
  cluster.setupPrimary({ exec, args: ['stubborn'], execArgv: [] });
  const { logger, lines } = logs();
  const supervisor = new WorkerSupervisor({ count: 1, port: 0, logger, stopTimeoutMs: 300 });
  await supervisor.start();
  const started = Date.now();
  await supervisor.stop();
  t.ok(Date.now() - started >= 250, 'it waited for the drain first');
  t.equal(lines.find((line) => line.msg === 'worker stopped')?.signal, 'SIGKILL', 'then killed it');
});

t.test('a worker that drains on its own (a signal to it alone) is routed no more, and replaced', async (t) => {
  cluster.setupPrimary({ exec, args: ['slow-drain'], execArgv: [] });
  const { logger, lines } = logs();
  const supervisor = new WorkerSupervisor({ count: 2, port: 0, logger });
  await supervisor.start();
  t.teardown(() => supervisor.stop());
  const draining = supervisor.route(0)!;
  const exited = new Promise((resolve) => draining.once('exit', resolve));
  draining.process.kill('SIGTERM');
  t.ok(await until(() => supervisor.route(0) !== draining, 500), 'the primary stops routing to it at once, while it drains');
  t.notOk(Array.from({ length: 4 }, () => supervisor.route(null)).includes(draining), 'not even round-robin');
  t.ok(!draining.isDead(), 'it is still draining');
  t.ok(await until(() => supervisor.pids().length === 2 && !supervisor.pids().includes(draining.process.pid!) && supervisor.route(0)?.process.pid !== supervisor.route(1)?.process.pid), 'a replacement serves in its slot');
  await exited;
  t.notOk(lines.some((line) => typeof line.restartInMs === 'number'), 'its exit is no failure: no second replacement');
  await supervisor.stop();
  t.same(supervisor.pids(), []);
});

t.test('route picks the named slot, else round-robin; realtime changes go to every worker', async (t) => {
  cluster.setupPrimary({ exec, args: ['relay'], execArgv: [] });
  const { logger } = logs();
  const supervisor = new WorkerSupervisor({ count: 2, port: 0, logger });
  await supervisor.start();
  t.teardown(() => supervisor.stop());
  const pids = supervisor.pids();
  t.equal(supervisor.route(1)?.process.pid, pids[1], 'the slot a session id names');
  t.equal(supervisor.route(0)?.process.pid, pids[0]);
  const spread = [supervisor.route(null), supervisor.route(null), supervisor.route(7), supervisor.route(null)].map((worker) => worker?.process.pid);
  t.same(new Set(spread), new Set(pids), 'no slot (or one that does not exist): round-robin over both');

  const delivered: Array<{ slot: number; id: string }> = [];
  const onMessage = (_worker: unknown, message: { type?: string; slot?: number; change?: { data: { id: string } } }) => {
    if (message.type === 'test:delivered') delivered.push({ slot: message.slot!, id: message.change!.data.id });
  };
  cluster.on('message', onMessage);
  t.teardown(() => void cluster.off('message', onMessage));
  const [first, second] = [supervisor.route(0)!, supervisor.route(1)!];
  first.send({ type: 'test:publish', id: 'a' });
  second.send({ type: 'test:publish', id: 'b' });
  first.send({ type: 'test:publish', id: 'c' });
  t.ok(await until(() => delivered.length === 6), 'each change reaches both workers, the publisher included');
  const order = (slot: number) => delivered.filter((entry) => entry.slot === slot).map((entry) => entry.id);
  t.same(order(0), order(1), 'in the same order on both');
  t.same([...order(0)].sort(), ['a', 'b', 'c']);

  const dead = supervisor.route(0)!;
  dead.process.kill('SIGKILL');
  await new Promise((resolve) => dead.once('exit', resolve));
  t.equal(supervisor.route(0)?.process.pid, pids[1], 'a slot whose worker is gone: another worker');
  await supervisor.stop();
  t.equal(supervisor.route(null), null, 'none serves: none');
});
