/** A test's HTTP server (a proxy) on a free local port, closed with its agent when the test ends; answers its URL. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export async function listenForTest(t: Test, server: http.Server, agent: http.Agent): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
    agent.destroy();
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
