/**
 * A stand-in worker for the sticky balancer's tests: a real forked process that takes the
 * connections it is handed (server/cluster/worker.ts, server/startup.ts) and answers each request
 * with what it saw: its pid, the URL, and how many body bytes arrived. On the message 'block' it
 * stops its event loop for good; on { pause: ms } for that long (a slow worker); on 'close' it
 * closes its server (begins to drain); on 'stop' it leaves once its connections are closed. A 'block'ed worker is a hung one: it reads no message,
 * and so adopts no socket.
 */
import { receiveConnections } from '../../server/cluster/worker.js';
import { handedListener } from '../../server/startup.js';

const listener = handedListener();
listener.setHandler((req, res) => {
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => res.end(JSON.stringify({ pid: process.pid, url: req.url, bytes })));
});
receiveConnections(listener.adopt);
process.on('message', (message) => {
  if (message === 'stop') void listener.drained!().then(() => process.disconnect());
  if (message === 'block') for (;;);
  if (message === 'close') listener.server.close();
  const pause = (message as { pause?: unknown } | null)?.pause;
  if (typeof pause === 'number') for (const end = Date.now() + pause; Date.now() < end;);
});
process.send!('ready');
