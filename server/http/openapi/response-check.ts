import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { Ajv } from '../../../schema/ajv-factory.js';
import type { Route } from '../routes/types.js';
import type { Middleware } from '../state.js';

export interface ResponseViolation {
  route: string;
  method: string;
  path: string;
  status: number;
  problem: string;
}

/**
 * Checks every response against its route's described responses (test runs turn it on with
 * FIELDOPS_CHECK_RESPONSES=1): the status must be described, and a JSON body must match the
 * described schema. Violations are kept on the checker and appended, one JSON line each, to
 * `<os temp dir>/fieldops-response-violations-<pid>.jsonl`. It never changes a response.
 */
export class ResponseChecker {
  readonly violations: ResponseViolation[] = [];
  readonly file = path.join(os.tmpdir(), `fieldops-response-violations-${process.pid}.jsonl`);
  private byName = new Map<string, Route>();
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly ajv: Ajv) {}

  /** App-level, around the error mapping: sees the final status and body, errors included. */
  middleware(routes: readonly Route[]): Middleware {
    this.byName = new Map(routes.map((route) => [route.name, route]));
    return async (ctx, next) => {
      try {
        await next();
      } finally {
        const route = ctx.state.routeName ? this.byName.get(ctx.state.routeName) : undefined;
        if (route) this.check(route, ctx.method, ctx.path, ctx.status, ctx.body);
      }
    };
  }

  check(route: Route, method: string, requestPath: string, status: number, body: unknown): void {
    const spec = route.schema.responses[status];
    const record = (problem: string) => this.record({ route: route.name, method, path: requestPath, status, problem });
    if (!spec) return record(`status ${status} is not described`);
    if (!spec.json || body === null || body === undefined) return;
    if (typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
    const key = `${route.name} ${status}`;
    let validate = this.validators.get(key);
    if (!validate) this.validators.set(key, (validate = this.ajv.compile(spec.json)));
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
      record(`body does not match the described schema: ${errors.join('; ')}`);
    }
  }

  private record(violation: ResponseViolation): void {
    this.violations.push(violation);
    try {
      fs.appendFileSync(this.file, JSON.stringify(violation) + '\n');
    } catch {
      // The in-memory list is the record of truth; the file is a convenience.
    }
  }
}
