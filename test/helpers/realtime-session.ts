import type { Test } from 'tap';
import { io, type Socket } from 'socket.io-client';

export interface RealtimeSession {
  socket: Socket;
  /** The `resp_authorization` status code. */
  status: number;
  /** Every message received, in order: `[type, payload]`. */
  received: Array<[string, any]>;
}

/**
 * A socket.io session as the web app opens it: connect to `/das` (the app's namespace; `/`
 * serves the same), polling first then the upgrade unless `transports` says otherwise, then
 * `authorization` with the token.
 */
export async function realtimeSession(t: Test, url: string, token: string, options: { namespace?: string; transports?: Array<'polling' | 'websocket'> } = {}): Promise<RealtimeSession> {
  const socket = io(url + (options.namespace ?? '/das'), { path: '/socket.io', reconnection: false, ...(options.transports ? { transports: options.transports } : {}) });
  t.teardown(() => void socket.close());
  const received: Array<[string, any]> = [];
  socket.onAny((type: string, payload: unknown) => received.push([type, payload]));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const answer = new Promise<any>((resolve) => socket.once('resp_authorization', resolve));
  socket.emit('authorization', { type: 'authorization', id: 1, authorization: `Bearer ${token}` });
  return { socket, status: (await answer).status.code, received };
}
