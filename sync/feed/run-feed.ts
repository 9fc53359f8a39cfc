/**
 * One pull through the change feed: ask for pages from the stored cursor until the server has
 * nothing more, each page applied and committed with its cursor (apply.ts). Then check the
 * checkpoint of the last page against the rows held, and repair the keys that differ in the same
 * run (verify.ts).
 *
 * Starting over (keeping the outbox): another server or user (rows dropped at once); `--reset`
 * (rows kept until the new snapshot replaces them; see state.ts); a 410 from the server (history
 * too old, or a cursor it cannot continue), once per run.
 *
 * A changed key set is NOT a reset (docs/sync.md §Key-set changes): the day keys that move with
 * the date, a changed `--scope`, a subject group newly visible, a permission revoked. The stored
 * cursor is sent with `previous_scopes`, the granted keys it was made with; the server sends the
 * records of added keys only, and the rows no granted key justifies any more are dropped with the
 * first page whose `granted` lost keys (apply.ts). The previous keys are sent when the requested
 * keys changed; when only the server's grants did (su:* expanding to a new group), its 410 is
 * answered once by asking again with them, before any reset.
 *
 * A server without the feed (404), or one still preparing it (503 `sync_preparing`), gets the
 * older `updated_since` pull instead, with a warning given once per mirror.
 */
import type { Knex } from 'knex';
import { MAX_PAGE_CHANGES, MAX_SCOPE_KEYS, type DeniedScope, type RecordKind, type ScopeSum } from '../../protocol/sync.js';
import { failure } from '../errors.js';
import type { PullReport } from '../pull/run-pull.js';
import { applyPage, emptyCounts, type ApplyCounts } from './apply.js';
import type { FeedClient } from './client.js';
import { scopeKeys } from './scopes.js';
import { kindsCarried, readFeedState, resetFeed, setState } from './state.js';
import { repairScope, type RepairReport } from './verify.js';

export const NO_FEED_WARNING = 'this server has no change feed; deletions will not reach this laptop';
const SETTLE_TRIES = 5;
const MAX_RESETS = 2;

export type CheckpointOutcome = 'verified' | 'repaired' | 'mismatch' | 'not_verified' | 'none';

export interface FeedReport {
  mode: 'feed' | 'fallback';
  /** Why the pulled data was rebuilt in this run (empty: it was not). */
  resets: string[];
  /** Granted keys added and dropped since the last run, without a reset (null: none). */
  scopeChange: { added: string[]; removed: string[] } | null;
  pages: number;
  received: number;
  counts: ApplyCounts;
  swept: number;
  checkpoint: CheckpointOutcome;
  /** Keys whose sums differed from the server's at the checkpoint (before any repair). */
  mismatched: Array<{ server: ScopeSum; local: ScopeSum }>;
  repairs: RepairReport[];
  keys: string[];
  granted: string[];
  denied: DeniedScope[];
  /** The kinds the feed keeps for this laptop (the catalog GETs may skip theirs). */
  carried: RecordKind[];
  fallback: PullReport[] | null;
  warnings: string[];
}

export interface FeedProgress {
  pages: number;
  received: number;
  phase: 'pulling' | 'settling' | 'repairing';
}

export interface FeedRunOptions {
  knex: Knex;
  client: FeedClient;
  server: string;
  username: string | null;
  /** `--scope` values to use from now on; undefined: those stored (or the default). */
  scopes?: string[];
  reset?: boolean;
  /** Repair keys that differ at the checkpoint (false: only report them; `fieldops verify`). */
  repair: boolean;
  /** The user's id, for `--scope mine`. */
  userId: () => Promise<string | null>;
  /** The older pull, for a server without the feed. */
  fallback: () => Promise<PullReport[]>;
  now: () => number;
  wait: (ms: number) => Promise<void>;
  onProgress?: (progress: FeedProgress) => void;
  limit?: number;
}

/** The changes a run asks for on its first pages (see pageLimit). */
export const FIRST_PAGE_CHANGES = 150;

/**
 * Changes to ask for, given what this run has received: a ninth of it (so that the page is at
 * most a tenth of the total once it has arrived), at least FIRST_PAGE_CHANGES, at most
 * MAX_PAGE_CHANGES. A page arrives whole before any of it is committed, so a kill at the worst
 * moment costs that page: a rerun re-sends at most a tenth of what the killed run had received
 * (or, early in a run, one page of FIRST_PAGE_CHANGES). A first pull of 22,000 records takes 41
 * pages instead of 22.
 */
export function pageLimit(received: number): number {
  return Math.max(FIRST_PAGE_CHANGES, Math.min(MAX_PAGE_CHANGES, Math.floor(received / 9)));
}

export async function runFeed(options: FeedRunOptions): Promise<FeedReport> {
  const { knex, client } = options;
  const state = await readFeedState(knex);
  const specs = options.scopes ?? state.scopes ?? [];
  const keys = scopeKeys(specs, options.now(), specs.includes('mine') ? await options.userId() : null);
  const identity = `${options.server} ${options.username ?? ''}`;
  const report: FeedReport = { mode: 'feed', resets: [], scopeChange: null, pages: 0, received: 0, counts: emptyCounts(), swept: 0, checkpoint: 'none', mismatched: [], repairs: [], keys, granted: [], denied: [], carried: [], fallback: null, warnings: [] };

  let reason: { mode: 'soft' | 'hard'; why: string | null } | null = null;
  if (state.identity !== null && state.identity !== identity) reason = { mode: 'hard', why: 'the mirror held records of another server or user: pulled them afresh' };
  else if (options.reset) reason = { mode: 'soft', why: 'rebuilt the pulled records (--reset); the outbox is kept' };
  else if (state.cursor === null) reason = { mode: 'soft', why: null };
  await knex.transaction(async (trx) => {
    if (reason) await resetFeed(trx, reason.mode);
    await setState(trx, { identity, scopes: JSON.stringify(specs), keys: JSON.stringify(keys) });
  });
  if (reason?.why) report.resets.push(reason.why);

  let cursor = reason ? null : state.cursor;
  let sweep = reason !== null || state.sweep;
  // The granted keys the cursor was made with: sent as previous_scopes when the set may differ.
  let previous: string[] = cursor === null ? [] : state.granted;
  const canName = () => cursor !== null && previous.length > 0 && previous.length <= MAX_SCOPE_KEYS;
  let naming = canName() && JSON.stringify(state.keys) !== JSON.stringify(keys);
  let settleTries = 0;
  let resets = 0;
  for (;;) {
    const answer = await client.changes({ cursor, scopes: keys, limit: options.limit ?? pageLimit(report.received), ...(naming ? { previous_scopes: previous } : {}) });
    if (answer.kind === 'no_feed' || answer.kind === 'preparing') return fallBack(options, report, answer.kind === 'preparing');
    if (answer.kind === 'gone') {
      // The grants changed under the same requested keys: ask once more naming the old ones.
      if (answer.reason === 'scopes_changed' && !naming && canName()) {
        naming = true;
        continue;
      }
      if (++resets > MAX_RESETS) throw failure('server', `the server answered 410 even to a fresh start (${answer.detail ?? answer.reason})`, 'try again later; if it persists, tell the server administrator');
      await knex.transaction((trx) => resetFeed(trx, 'soft'));
      report.resets.push(answer.reason === 'scopes_changed' ? 'your permissions or scopes changed on the server: pulled a fresh snapshot (the outbox is kept)' : 'the server\'s history no longer reaches your last sync: pulled a fresh snapshot (the outbox is kept)');
      cursor = null;
      previous = [];
      naming = false;
      sweep = true;
      continue;
    }
    const page = answer.page;
    if (report.pages === 0) await setState(knex, { server_has_feed: '1' });
    noteScopeChange(report, previous, page.granted, cursor !== null);
    const result = await applyPage(knex, page, { sweep, previous });
    previous = page.granted;
    naming = false;
    if (!page.has_more && sweep) sweep = false;
    report.pages++;
    report.received += page.changes.length;
    report.swept += result.swept;
    report.counts.put += result.put;
    report.counts.deleted += result.deleted;
    report.counts.ignored += result.ignored;
    for (const [kind, tally] of Object.entries(result.byKind) as Array<[RecordKind, { put: number; deleted: number }]>) {
      const total = (report.counts.byKind[kind] ??= { put: 0, deleted: 0 });
      total.put += tally.put;
      total.deleted += tally.deleted;
    }
    report.granted = page.granted;
    report.denied = page.denied;
    cursor = page.cursor;
    options.onProgress?.({ pages: report.pages, received: report.received, phase: 'pulling' });
    if (page.has_more) continue;
    if (page.checkpoint) {
      report.mismatched = result.mismatched;
      report.checkpoint = result.mismatched.length === 0 ? 'verified' : 'mismatch';
      break;
    }
    if (page.settling && ++settleTries <= SETTLE_TRIES) {
      options.onProgress?.({ pages: report.pages, received: report.received, phase: 'settling' });
      await options.wait(200 * 2 ** (settleTries - 1));
      continue;
    }
    report.checkpoint = page.settling ? 'not_verified' : 'none';
    break;
  }
  report.carried = kindsCarried(report.granted);
  if (report.checkpoint === 'not_verified') report.warnings.push('the server kept writing: this pull could not be verified yet (the next one will be)');
  if (report.mismatched.length && options.repair) {
    options.onProgress?.({ pages: report.pages, received: report.received, phase: 'repairing' });
    for (const { server } of report.mismatched) report.repairs.push(await repairScope({ client, knex, granted: report.granted, wait: options.wait }, server.key));
    report.checkpoint = report.repairs.every((r) => r.repaired) ? 'repaired' : 'mismatch';
    if (report.checkpoint === 'mismatch') report.warnings.push(`scopes still differing from the server after a repair: ${report.repairs.filter((r) => !r.repaired).map((r) => r.scope).join(', ')} (\`fieldops verify --repair\` tries again)`);
  }
  return report;
}

/** Adds the keys a resumed cursor gained or lost on this page to the run's tally. */
function noteScopeChange(report: FeedReport, previous: readonly string[], granted: readonly string[], resumed: boolean): void {
  if (!resumed) return;
  const added = granted.filter((key) => !previous.includes(key));
  const removed = previous.filter((key) => !granted.includes(key));
  if (added.length === 0 && removed.length === 0) return;
  const change = (report.scopeChange ??= { added: [], removed: [] });
  change.added.push(...added);
  change.removed.push(...removed);
}

async function fallBack(options: FeedRunOptions, report: FeedReport, preparing: boolean): Promise<FeedReport> {
  const state = await readFeedState(options.knex);
  if (!preparing) {
    // A later server with the feed starts from a fresh snapshot (rows pulled meanwhile have no version).
    await options.knex.transaction(async (trx) => {
      await resetFeed(trx, 'soft');
      await setState(trx, { server_has_feed: '0' });
    });
  }
  if (!state.fallbackWarned) {
    report.warnings.push(preparing ? 'the server is still preparing its change feed: used the older pull this time; deletions will not reach this laptop until the feed is ready' : NO_FEED_WARNING);
    await setState(options.knex, { fallback_warned: '1' });
  }
  report.mode = 'fallback';
  report.fallback = await options.fallback();
  return report;
}
