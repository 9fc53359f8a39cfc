/**
 * Posts one recorded line and says what became of it. The sensor endpoints de-duplicate
 * (same source and `recorded_at`; the same camera image), so posting a line twice is harmless:
 * a re-run reports `duplicate` instead of storing twice.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { failure } from '../../sync/errors.js';
import { describeErrorBody, unexpectedResponse } from '../../sync/http-errors.js';
import type { Transport, TransportRequest } from '../../sync/http.js';
import type { RecordingLine } from './recording.js';

export type Outcome = 'created' | 'duplicate' | 'accepted' | 'rejected';

export interface LineResult {
  line: number;
  outcome: Outcome;
  status: number;
  /** Why a line was rejected (the server's words). */
  reason?: string;
}

const IMAGE_TYPES: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.gif': 'image/gif', '.webp': 'image/webp' };

export async function buildRequest(server: string, entry: RecordingLine): Promise<TransportRequest> {
  const url = server + entry.path;
  if (!entry.file) {
    return { method: 'POST', url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(entry.body) };
  }
  // multipart/form-data: the image as `filecontent.file`, other fields as text (objects as JSON).
  const form = new FormData();
  const bytes = await readFile(entry.file);
  form.set('filecontent.file', new Blob([bytes], { type: IMAGE_TYPES[path.extname(entry.file).toLowerCase()] ?? 'application/octet-stream' }), path.basename(entry.file));
  for (const [key, value] of Object.entries(entry.body as Record<string, unknown>)) {
    form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const encoded = new Request(url, { method: 'POST', body: form });
  return {
    method: 'POST',
    url,
    headers: { 'content-type': encoded.headers.get('content-type')!, accept: 'application/json' },
    body: new Uint8Array(await encoded.arrayBuffer()),
  };
}

/** Sends a line. Credentials and permission problems end the replay (every line would fail). */
export async function sendLine(transport: Transport, server: string, entry: RecordingLine): Promise<LineResult> {
  const response = await transport(await buildRequest(server, entry));
  const result = { line: entry.line, status: response.status };
  switch (response.status) {
    case 201:
      return { ...result, outcome: 'created' };
    case 200:
      return { ...result, outcome: isHeartbeat(entry.body) ? 'accepted' : 'duplicate' };
    case 409:
      return { ...result, outcome: 'duplicate' };
    case 401:
    case 403:
      throw unexpectedResponse(response, `line ${entry.line} (${entry.path})`, server);
    default:
      if (response.status >= 400 && response.status < 500) {
        return { ...result, outcome: 'rejected', reason: describeErrorBody(response) ?? `HTTP ${response.status}` };
      }
      throw failure('server', `the server failed with HTTP ${response.status} on line ${entry.line}`, `try again later; resume with --from ${entry.line}`);
  }
}

const isHeartbeat = (body: unknown) => typeof body === 'object' && body !== null && (body as { message_key?: unknown }).message_key === 'heartbeat';
