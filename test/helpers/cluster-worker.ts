/**
 * A stand-in cluster worker for the supervisor's tests: a real forked process speaking the real
 * protocol (server/cluster/worker.ts), whose misbehaviour is chosen by its first argument.
 *   die-at-start       exits 1 before saying hello
 *   crash-after-ready  serves, then exits 3 after 100 ms
 *   stubborn           serves, and ignores the request to drain
 *   slow-drain         serves; drains for 1 s once asked (or signalled), then leaves
 *   relay              serves; publishes a realtime change when the test asks ('test:publish'),
 *                      and reports each change the primary delivers ('test:delivered')
 */
import { WorkerRealtimeRelay, joinCluster, leaveCluster, reportReady, shutdownRequested } from '../../server/cluster/worker.js';

const mode = process.argv[2];
if (mode === 'die-at-start') process.exit(1);
const { slot } = await joinCluster();
if (mode === 'relay') {
  const relay = new WorkerRealtimeRelay();
  relay.subscribe((change) => process.send!({ type: 'test:delivered', slot, change }));
  process.on('message', (message: { type?: string; id?: string }) => {
    if (message.type === 'test:publish') relay.publish({ tenantId: 't', kind: 'event', change: 'created', data: { id: message.id } });
  });
}
reportReady();
if (mode === 'crash-after-ready') setTimeout(() => process.exit(3), 100);
if (mode === 'stubborn') setInterval(() => {}, 1000);
else {
  await shutdownRequested();
  if (mode === 'slow-drain') await new Promise((resolve) => setTimeout(resolve, 1000));
  leaveCluster();
}
