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
