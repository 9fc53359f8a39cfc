import { STATUS_CODES } from 'node:http';
import type { FieldErrors } from '../domain/errors.js';

/** The key under which issues of a field literally named `status` are reported. */
export const STATUS_FIELD_KEY = 'status_param';

/**
 * The contract's one error body (CONTRACT §1):
 * `{"status": {"code", "message": <reason phrase>, "detail"}, <field>: [issues]...}`.
 * NOTE: `status` is the envelope's own key; a field of that name (the patrol list's `status`
 * filter) is reported as `status_param` so that it cannot replace the envelope.
 */
export function errorBody(status: number, detail: string, fields: FieldErrors = {}): Record<string, unknown> {
  const issues = Object.fromEntries(Object.entries(fields).map(([field, list]) => [field === 'status' ? STATUS_FIELD_KEY : field, list]));
  return { ...issues, status: { code: status, message: STATUS_CODES[status] ?? 'Error', detail } };
}
