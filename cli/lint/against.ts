/**
 * `fieldops lint --against`: each document that names a v2 event type is compared with the
 * type's current revision on a server (or in a mirror) and with what the stored events of the
 * type hold (its usage summary), by `checkCompatibility`. Its findings become ordinary lint
 * findings (rule id as code, line:column through the file's pointer locator), so every format
 * carries them. A type the source does not have is new: nothing recorded can break.
 */
import { checkCompatibility, COMPAT_RULES, type AllowedBreak, type CompatFinding, type UsageSummary } from '../../schema/compat/index.js';
import { explainDiffLimit } from '../schema/limits.js';
import type { ChoiceLookup } from '../../schema/diff/index.js';
import { createPointerLocator } from '../../schema/index.js';
import type { CompatTarget } from './compat-targets.js';
import { locate, type LintFinding } from './lint-file.js';

export interface CurrentType {
  value: string;
  schema: unknown;
}

/** Where `--against` reads from: a server (a profile, online) or a profile's mirror (offline). */
export interface AgainstSource {
  /** As shown to users: `profile "prod" (https://…)`, `the mirror of profile "prod" (…)`. */
  label: string;
  mode: 'online' | 'mirror';
  currentType(ref: { value: string; id: string | null }): Promise<CurrentType | null>;
  /**
   * Summaries by value. Online, `offered: false` means the server has no usage route; a value
   * missing from an offered answer has no stored events. From a mirror, a missing value means
   * no summary was kept.
   */
  usage(values: string[]): Promise<{ offered: boolean; summaries: Map<string, UsageSummary> }>;
  choices?: ChoiceLookup;
}

export interface AgainstFile {
  path: string;
  text: string;
  targets: CompatTarget[];
  findings: LintFinding[];
}

export interface AgainstResult {
  source: string;
  allowed: AllowedBreak[];
  /** Information lines (new types, a server without usage summaries). */
  notes: string[];
}

export const NO_USAGE_CODE = 'compat/no-usage-summary';

export async function compareAgainst(files: readonly AgainstFile[], source: AgainstSource, allow: readonly AllowedBreak[]): Promise<AgainstResult> {
  const notes: string[] = [];
  const current = new Map<string, CurrentType | null>();
  const keyOf = (t: CompatTarget) => `${t.id ?? ''}\n${t.value}`;
  for (const target of files.flatMap((f) => f.targets)) {
    if (!current.has(keyOf(target))) current.set(keyOf(target), await source.currentType(target));
  }
  const known = [...new Set([...current.values()].filter((c): c is CurrentType => c !== null).map((c) => c.value))];
  const usage = known.length ? await source.usage(known) : { offered: true, summaries: new Map<string, UsageSummary>() };
  if (!usage.offered) notes.push(`${source.label} offers no usage summaries (an older server): schemas compared without what stored events hold`);
  for (const file of files) {
    let locator: ReturnType<typeof createPointerLocator> | undefined;
    const at = (pointer: string) => locate((locator ??= createPointerLocator(file.text)), pointer);
    for (const target of file.targets) {
      const before = current.get(keyOf(target));
      if (!before) {
        notes.push(`${file.path}: "${target.value}" is a new type on ${source.label}: nothing recorded can break`);
        continue;
      }
      let summary = usage.summaries.get(before.value) ?? null;
      if (!summary && source.mode === 'online' && usage.offered) summary = { event_type: before.value, events: 0, fields: {} };
      if (!summary && source.mode === 'mirror') {
        file.findings.push({
          document: target.document, pointer: target.document, ...at(target.document), severity: 'warning', code: NO_USAGE_CODE, category: 'compatibility',
          message: `no usage summary kept for "${before.value}" in ${source.label}: schemas compared only`,
          hints: ['run `fieldops sync` online, then lint again'],
        });
      }
      const { findings } = explainDiffLimit(`${file.path} ("${target.value}") with ${source.label}`, () =>
        checkCompatibility({ before: before.schema, after: target.after, beforeValue: before.value, afterValue: target.value, usage: summary, choices: source.choices, allow }));
      for (const finding of findings) {
        const pointer = target.document + finding.pointer;
        file.findings.push(toLintFinding(allowed(finding, allow), target.document, pointer, at(pointer)));
      }
    }
    file.findings.sort((a, b) => a.line - b.line || a.column - b.column);
  }
  return { source: source.label, allowed: [...allow], notes };
}

/** The engine applies `allow` itself; applied here too so an allowed break is never an error. */
function allowed(finding: CompatFinding, allow: readonly AllowedBreak[]): CompatFinding {
  const match = allow.find((a) => a.rule === finding.rule);
  if (!match) return finding;
  return { ...finding, severity: 'warning', allowed: finding.allowed ?? { reason: match.reason } };
}

function toLintFinding(f: CompatFinding, document: string, pointer: string, at: { line: number; column: number }): LintFinding {
  const count = `${f.affected_at_least ? 'at least ' : ''}${f.affected_events} stored event${f.affected_events === 1 ? '' : 's'}`;
  const message = f.message.includes(String(f.affected_events)) ? f.message : `${f.message} (${count})`;
  return {
    document, pointer, line: at.line, column: at.column, severity: f.severity, code: f.rule, category: 'compatibility',
    message: f.allowed ? `${message}; allowed: ${f.allowed.reason}` : message,
    hints: [f.hint],
    affected_events: f.affected_events,
    ...(f.affected_at_least ? { affected_at_least: true } : {}),
    ...(f.allowed ? { allowed: f.allowed } : {}),
  };
}

/** `--allow-breaking` values checked against the rule ids; null when one is unknown. */
export function unknownRules(rules: readonly string[]): string[] {
  return rules.filter((r) => !(COMPAT_RULES as readonly string[]).includes(r));
}
export { COMPAT_RULES };
