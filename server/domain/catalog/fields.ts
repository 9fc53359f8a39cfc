import { type FieldErrors, type FieldIssue, InputError } from '../errors.js';
import { nameTable } from '../name-table.js';

/**
 * Small, strict readers for write bodies: each records a field error instead of throwing, so
 * that every problem of a body is reported at once.
 */
export class BodyReader {
  /** By field name, the body's own (`rejectUnknown` reports whatever names were sent). */
  readonly errors: FieldErrors = nameTable();

  constructor(readonly body: Record<string, unknown>) {}

  static of(body: unknown): BodyReader {
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw InputError.field('body', 'invalid_type', 'Expected a JSON object.', ['Send the fields as a JSON object.']);
    }
    return new BodyReader(body as Record<string, unknown>);
  }

  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.body, name);
  }

  add(field: string, issue: FieldIssue): void {
    (this.errors[field] ??= []).push(issue);
  }

  string(name: string, options: { max: number; pattern?: RegExp; patternHint?: string; required?: boolean }): string | undefined {
    if (!this.has(name) || this.body[name] === undefined) {
      if (options.required) this.add(name, { code: 'required', message: 'This field is required.', hints: [`Provide ${name}.`] });
      return undefined;
    }
    const value = this.body[name];
    if (typeof value !== 'string') {
      this.add(name, { code: 'invalid_type', message: 'Expected a string.', hints: [`Send ${name} as a JSON string.`] });
      return undefined;
    }
    if (value.length > options.max) this.add(name, { code: 'max_length', message: `Ensure this field has no more than ${options.max} characters.`, hints: [`Shorten ${name}.`] });
    if (options.pattern && !options.pattern.test(value)) this.add(name, { code: 'invalid', message: `"${value.slice(0, 60)}" is not a valid ${name}.`, hints: [options.patternHint ?? 'See the API documentation.'] });
    if (options.required && value === '') this.add(name, { code: 'blank', message: 'This field may not be blank.', hints: [`Provide ${name}.`] });
    return value;
  }

  boolean(name: string): boolean | undefined {
    if (!this.has(name)) return undefined;
    const value = this.body[name];
    if (typeof value !== 'boolean') {
      this.add(name, { code: 'invalid_type', message: 'Expected a boolean.', hints: ['Use true or false.'] });
      return undefined;
    }
    return value;
  }

  oneOf<T extends number | string>(name: string, allowed: readonly T[]): T | undefined {
    if (!this.has(name)) return undefined;
    const value = this.body[name] as T;
    if (!allowed.includes(value)) {
      this.add(name, { code: 'invalid_choice', message: `"${String(value)}" is not a valid choice.`, hints: [`Use one of ${allowed.join(', ')}.`] });
      return undefined;
    }
    return value;
  }

  /** Keys that are neither writable nor known read-only fields are an error (typos do not pass silently). */
  rejectUnknown(writable: readonly string[], readOnly: readonly string[]): void {
    for (const key of Object.keys(this.body)) {
      if (!writable.includes(key) && !readOnly.includes(key)) {
        this.add(key, { code: 'unknown_field', message: `Unknown field "${key}".`, hints: [`Writable fields: ${writable.join(', ')}.`] });
      }
    }
  }

  /** Throws the collected errors, if any. */
  finish(message = 'The request body is not valid.'): void {
    if (Object.keys(this.errors).length > 0) throw new InputError(message, this.errors);
  }
}
