/** What `fieldops verify` prints. */
import type { Style } from '../output/style.js';

export function renderVerify(r: { ok: boolean; checkpoint: string; scopes: Array<{ scope: string; server: { count: number }; local: { count: number } }>; tampered: Array<{ kind: string; id: string; columns: string[] }>; unscoped: Array<{ kind: string; id: string }>; repaired: { scopes: Array<{ scope: string; missing: number; stale: number; extra: number; repaired: boolean }>; restored_rows: number; dropped_rows: number } | null }, style: Style): string {
  const lines: string[] = [];
  if (r.checkpoint === 'not_verified' || r.checkpoint === 'none') lines.push(style.yellow('the server gave no checkpoint (it was busy writing): not verified yet; try again'));
  for (const s of r.scopes) lines.push(`${style.yellow('differs')} ${s.scope}: server ${s.server.count}, this laptop ${s.local.count}`);
  for (const t of r.tampered) lines.push(`${style.yellow('edited')} ${t.kind} ${t.id}: ${t.columns.join(', ')} not as the record says`);
  if (r.unscoped.length) lines.push(`${style.yellow('unscoped')} ${r.unscoped.length} row${r.unscoped.length === 1 ? '' : 's'} no scope asks for`);
  if (r.repaired) {
    for (const s of r.repaired.scopes) lines.push(`repaired ${s.scope}: ${s.missing} missing, ${s.stale} stale, ${s.extra} extra${s.repaired ? '' : style.yellow(' (still differing)')}`);
    if (r.repaired.restored_rows) lines.push(`restored ${r.repaired.restored_rows} edited row${r.repaired.restored_rows === 1 ? '' : 's'} from the server`);
    if (r.repaired.dropped_rows) lines.push(`dropped ${r.repaired.dropped_rows} unscoped row${r.repaired.dropped_rows === 1 ? '' : 's'}`);
  }
  lines.push(r.ok ? style.green('the mirror matches the server') : style.yellow(r.repaired ? 'differences are left: run `fieldops verify --repair` again' : 'the mirror differs from the server: `fieldops verify --repair` fixes it'));
  return lines.join('\n');
}
