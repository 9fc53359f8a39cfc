/**
 * The revision history of events and patrols (issue 26 §3): one row per revision an update
 * makes, written in the update's transaction. Who, from which device and under which entry key
 * come from the write scope (server/domain/write-scope.ts); the sweep writes device `server`.
 */
import { sameValue, type MergeKind } from '../../../protocol/merge-fields.js';
import { type Principal, actingUser } from '../context.js';
import type { Repositories } from '../ports.js';
import { currentWriteScope, scopedEntryKey } from '../write-scope.js';
import type { RevisionRow } from './ports.js';

/** The device written for changes the server makes by itself (the automatic-done sweep). */
export const SERVER_DEVICE = 'server';

/** `{path: [before, after]}` of every path whose value differs (absent = null). */
export function diffFields(before: ReadonlyMap<string, unknown>, after: ReadonlyMap<string, unknown>): Record<string, [unknown, unknown]> {
  const fields: Record<string, [unknown, unknown]> = {};
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(path) ?? null;
    const b = after.get(path) ?? null;
    if (!sameValue(a, b)) fields[path] = [a, b];
  }
  return fields;
}

/** Who wrote: the acting user, the OAuth client, the device and the entry key of the request under way. */
export function writer(principal: Principal | null): Pick<RevisionRow, 'userId' | 'clientId' | 'deviceId' | 'entryKey'> {
  const scope = currentWriteScope();
  return {
    userId: principal ? (actingUser(principal)?.id ?? null) : null,
    clientId: principal ? principal.client.clientId : null,
    deviceId: principal ? (scope?.deviceId ?? null) : SERVER_DEVICE,
    entryKey: principal ? scopedEntryKey(scope) : null,
  };
}

export interface RevisionRecord {
  kind: MergeKind;
  tenantId: string;
  id: string;
  revision: number;
  base: number | null;
  before: ReadonlyMap<string, unknown>;
  after: ReadonlyMap<string, unknown>;
  merged?: string[];
  action?: RevisionRow['action'];
  at: number;
}

/** Appends the history row of one revision (principal null: the server itself). */
export async function recordRevision(repos: Repositories, principal: Principal | null, record: RevisionRecord): Promise<RevisionRow> {
  const row: RevisionRow = {
    tenantId: record.tenantId, kind: record.kind, recordId: record.id, revision: record.revision, action: record.action ?? 'updated',
    baseRevision: record.base, fields: diffFields(record.before, record.after), merged: record.merged ?? [], ...writer(principal), at: record.at,
  };
  await repos.revisions.append(row);
  return row;
}
