/**
 * Field errors as the original (Django REST framework) answers them, for the earthranger profile
 * (issue 27): `{"<field>": ["<message>", ...], "status": {code, message, detail}}`. The fieldops
 * profile keeps the contract's issues (`{code, message, hints, pointer}`, CONTRACT §1).
 *
 * `status.detail` becomes the field messages as a JSON object: the web app shows a refused save
 * by parsing `status.detail` as that object (after turning `'` into `"`, the original's detail
 * being a Python dict's text), one line per field. NOTE: an apostrophe in a message would break
 * that parse, so the detail's copies carry `’` instead; the field keys keep the text as it is.
 */
const isIssue = (value: unknown): value is { message: string } =>
  value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string' && typeof (value as { code?: unknown }).code === 'string';

export function fieldErrorsAsOriginal(body: Record<string, unknown>): Record<string, unknown> {
  const status = body.status as { code?: unknown; message?: unknown; detail?: unknown } | undefined;
  if (!status || typeof status !== 'object' || typeof status.code !== 'number') return body;
  const out: Record<string, unknown> = {};
  const fields: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== 'status' && Array.isArray(value) && value.length > 0 && value.every(isIssue)) {
      fields[key] = value.map((issue) => issue.message);
      out[key] = fields[key];
    } else {
      out[key] = value;
    }
  }
  if (Object.keys(fields).length === 0) return body;
  const detail = JSON.stringify(Object.fromEntries(Object.entries(fields).map(([key, messages]) => [key, messages.map((text) => text.replace(/'/g, '\u2019'))])));
  return { ...out, status: { ...status, detail: detail.replace(/'/g, '\u2019') } };
}
