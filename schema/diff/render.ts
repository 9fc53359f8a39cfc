/**
 * Renderers of a `SchemaDiff`, pure functions returning text: `stylish` for terminals (the
 * layout of the lint's stylish output: one row per change, `path  breaking|change  message
 * kind`, then a summary line), `json` (the diff plus a summary, stable for scripts) and
 * `markdown` (a table for a pull-request comment, breaking changes marked, capped at
 * `MAX_MARKDOWN_ROWS` rows so the comment stays under the forges' size limits).
 */
import type { Change, SchemaDiff } from './types.js';

export type DiffFormat = 'stylish' | 'json' | 'markdown';
export const DIFF_FORMATS: readonly DiffFormat[] = ['stylish', 'json', 'markdown'];
export const MAX_MARKDOWN_ROWS = 300;

export interface RenderOptions {
  /** ANSI colours in stylish output (the caller decides from the terminal and NO_COLOR). */
  color?: boolean;
  /** What was compared, e.g. `wildlife_sighting: revision 3 → revision 4`. */
  title?: string;
}

export function renderDiff(diff: SchemaDiff, format: DiffFormat, options: RenderOptions = {}): string {
  switch (format) {
    case 'stylish': return renderStylish(diff, options);
    case 'json': return renderJson(diff, options);
    case 'markdown': return renderMarkdown(diff, options);
    default: throw new TypeError(`unknown diff format: ${String(format)}`);
  }
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const countBreaking = (changes: readonly Change[]): number => changes.filter((c) => c.breaking).length;

function summaryText(diff: SchemaDiff): string {
  return `${plural(diff.changes.length, 'change')} (${countBreaking(diff.changes)} breaking)`;
}

export function renderStylish(diff: SchemaDiff, options: RenderOptions = {}): string {
  const paint = (code: string) => (text: string): string => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const [bold, red, yellow, green, dim] = ['1', '31', '33', '32', '2'].map(paint) as [(t: string) => string, (t: string) => string, (t: string) => string, (t: string) => string, (t: string) => string];
  let text = options.title ? `\n${bold(options.title)}\n` : '\n';
  if (diff.identical) return text + `${green('✔')} identical: no changes\n`;
  // NOTE: a loop, not Math.max(...paths): spreading 200,000 arguments overflows the stack
  let w0 = 0;
  for (const change of diff.changes) w0 = Math.max(w0, change.path.length);
  const w1 = 'breaking'.length;
  for (const change of diff.changes) {
    const label = change.breaking ? 'breaking' : 'change';
    const severity = change.breaking ? red(label) : yellow(label);
    text += `  ${change.path.padEnd(w0)}  ${severity}${' '.repeat(w1 - label.length)}  ${oneLine(change.message)}  ${dim(change.kind)}\n`;
  }
  const line = `✖ ${summaryText(diff)}`;
  return text + '\n' + (countBreaking(diff.changes) > 0 ? red(bold(line)) : yellow(bold(line))) + '\n';
}

export function renderJson(diff: SchemaDiff, options: RenderOptions = {}): string {
  const body = {
    ...(options.title ? { title: options.title } : {}),
    identical: diff.identical,
    summary: { changes: diff.changes.length, breaking: countBreaking(diff.changes) },
    changes: diff.changes,
  };
  return JSON.stringify(body, null, 2) + '\n';
}

export function renderMarkdown(diff: SchemaDiff, options: RenderOptions = {}): string {
  let text = `### Schema diff${options.title ? `: ${cell(options.title)}` : ''}\n\n`;
  if (diff.identical) return text + 'No changes: the two revisions are identical as forms.\n';
  const breaking = countBreaking(diff.changes);
  text += `**${summaryText(diff)}**${breaking > 0 ? ': breaking changes can invalidate or hide data already recorded.' : ''}\n\n`;
  text += '| | Change | Details | Path |\n|---|---|---|---|\n';
  for (const change of diff.changes.slice(0, MAX_MARKDOWN_ROWS)) {
    text += `|${change.breaking ? ' ⚠️ ' : ' '}| \`${change.kind}\`${change.likely ? ' (likely)' : ''} | ${cell(change.message)} | \`${cell(change.path.replace(/`/g, "'"))}\` |\n`;
  }
  const more = diff.changes.length - MAX_MARKDOWN_ROWS;
  if (more > 0) text += `\n…and ${plural(more, 'more change')} (see the json output).\n`;
  return text;
}

const oneLine = (text: string): string => text.replace(/[\r\n]+/g, ' ');
/** Text safe inside a table cell: no line breaks, pipes escaped, HTML brackets neutralised. */
function cell(text: string): string {
  return oneLine(text).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
