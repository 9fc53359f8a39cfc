/**
 * `serve --workers N` (N > 1): the primary does the one-time start-up work, then supervises N
 * workers that share the port; each worker is this same command, started by node:cluster.
 */
import type { AddressInfo } from 'node:net';
import type { Config } from '../../server/config.js';
import { AdminCreatedError, prepareServer, startWorkerServer } from '../../server/main.js';
import { createLogger } from '../../server/logger.js';
import { WorkerStartError, WorkerSupervisor } from '../../server/cluster/supervisor.js';
import { WorkerMetricsLink, WorkerRealtimeRelay, joinCluster, leaveCluster, receiveConnections, reportReady, shutdownRequested } from '../../server/cluster/worker.js';
import { StickyBalancer, sessionIdPrefix } from '../../server/cluster/sticky.js';
import { describeListenError } from '../../server/startup.js';
import type { CliIo } from '../main.js';
import { UserFacingError } from '../errors.js';
import { announceAdminPassword } from './admin-password.js';
import { banner, waitForSignal } from './serve.js';

/**
 * Checks, binds (to learn the port `--port 0` gives), migrates and bootstraps once, releases the
 * port, forks the workers, and prints the banner (with a generated admin password) only once
 * every worker serves.
 */
export async function runPrimary(io: CliIo, config: Config): Promise<void> {
  const logger = createLogger(config.logLevel).child({ role: 'primary', pid: process.pid });
  let prepared;
  try {
    prepared = await prepareServer(config, { logger });
  } catch (error) {
    if (error instanceof AdminCreatedError) {
      io.stderr.write(`fieldops: created superuser "admin"; ${announceAdminPassword({ generatedAdminPassword: error.adminPassword, passwordKept: false }, null)}\n`);
      throw error.failure;
    }
    throw error;
  }
  const { port } = prepared.listener.server.address() as AddressInfo;
  // NOTE: the port is free for the moment between this close and the balancer's listen.
  await prepared.listener.close();
  const supervisor = new WorkerSupervisor({ count: config.workers, port, logger });
  // The primary accepts every connection and hands it to a worker (sticky for realtime sessions).
  const balancer = new StickyBalancer({ pick: (slot) => supervisor.route(slot), maxConnectionsPerAddress: config.maxConnectionsPerAddress });
  const stopOnSignal = waitForSignal();
  try {
    await balancer.listen(port, config.host).catch((error: NodeJS.ErrnoException) => Promise.reject(describeListenError(error, port, config.host)));
    await Promise.race([supervisor.start(), stopOnSignal.then(() => Promise.reject(new UserFacingError('stopped by a signal while the workers were starting')))]);
  } catch (error) {
    balancer.close();
    await supervisor.stop();
    const failure = error instanceof WorkerStartError ? new UserFacingError(`the server did not start: ${error.message}`, 'the worker\'s own error is printed above') : error;
    const password = announceAdminPassword(prepared.bootstrap, config.adminPasswordFile);
    if (password) io.stderr.write(`fieldops: created superuser "admin"; ${password}\n`);
    await prepared.runtime.close();
    throw failure;
  }
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  try {
    io.stderr.write(await banner({
      url: `http://${host}:${port}`, config, description: prepared.runtime.database.description, store: prepared.runtime.store,
      bootstrap: prepared.bootstrap, demo: prepared.demo, workers: `${config.workers} (pids ${supervisor.pids().join(', ')}; primary ${process.pid})`,
    }));
  } finally {
    // The primary serves nothing: its pool is not needed past the banner.
    await prepared.runtime.close();
  }
  await stopOnSignal;
  io.stderr.write(`fieldops: shutting down (${config.workers} workers finishing in-flight requests)\n`);
  balancer.close();
  await supervisor.stop();
  io.stderr.write('fieldops: stopped\n');
}

/** A worker: asks the primary for the port, serves until asked to drain, then lets the process end. */
export async function runWorker(configFor: (port: number) => Config): Promise<void> {
  try {
    const { id, port, slot } = await joinCluster();
    const stop = shutdownRequested();
    const config = configFor(port);
    const logger = createLogger(config.logLevel).child({ worker: id, pid: process.pid });
    const server = await startWorkerServer(config, {
      logger, clusterMetrics: new WorkerMetricsLink(), realtimeRelay: new WorkerRealtimeRelay(), receiveConnections, sessionIdPrefix: sessionIdPrefix(slot),
    });
    reportReady();
    logger.info('worker serving');
    const reason = await stop;
    logger.info({ reason }, 'worker draining');
    await server.close();
  } finally {
    leaveCluster();
  }
}
