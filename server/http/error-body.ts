import { STATUS_CODES } from 'node:http';
import type { FieldErrors } from '../domain/errors.js';

/**
 * The contract's one error body (CONTRACT §1):
 * `{"status": {"code", "message": <reason phrase>, "detail"}, <field>: [issues]...}`.
 */
export function errorBody(status: number, detail: string, fields: FieldErrors = {}): Record<string, unknown> {
  return { status: { code: status, message: STATUS_CODES[status] ?? 'Error', detail }, ...fields };
}
