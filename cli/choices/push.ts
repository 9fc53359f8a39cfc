/** `fieldops choices push`: one POST /api/v2.0/choices per record; "already exists" is success. */
import { failure } from '../../sync/errors.js';
import { describeErrorBody, unexpectedResponse } from '../../sync/http-errors.js';
import type { Transport } from '../../sync/http.js';

export interface PushResult {
  created: number;
  existing: number;
  refused: Array<{ field: string; value: string; reason: string }>;
}

/** Called after each record with the counts so far. */
export type ChoicesProgress = (done: number, total: number, result: PushResult) => void;

export async function pushChoices(transport: Transport, server: string, records: unknown[], onProgress?: ChoicesProgress): Promise<PushResult> {
  const result: PushResult = { created: 0, existing: 0, refused: [] };
  for (const [index, record] of records.entries()) {
    if (index > 0) onProgress?.(index, records.length, result);
    const { field, value } = (record ?? {}) as { field?: unknown; value?: unknown };
    const response = await transport({
      method: 'POST',
      url: `${server}/api/v2.0/choices`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(record),
    });
    if (response.status === 201 || response.status === 200) result.created += 1;
    else if (response.status === 400 || response.status === 409) {
      const detail = describeErrorBody(response) ?? `HTTP ${response.status}`;
      if (/already (has|exists)/i.test(detail)) result.existing += 1;
      else result.refused.push({ field: String(field ?? ''), value: String(value ?? ''), reason: detail });
    } else if (response.status === 403) {
      throw failure('permission', 'not allowed to create choices', 'it needs the add_choice permission: ask an administrator (`fieldops admin grant --username <you> --permission add_choice`)');
    } else throw unexpectedResponse(response, 'the choice creation', server);
  }
  onProgress?.(records.length, records.length, result);
  return result;
}
