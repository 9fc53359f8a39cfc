/**
 * Template tags of v1 event type documents (CONTRACT §5). er-server renders a v1 document as a
 * Django template: a tag is `{{<lookup>___<field>___<kind>}}` where lookup is `enum` (choice
 * records), `query` (dynamic choices, e.g. subjects) or `table` (legacy choice tables), and kind
 * is `values` (array of values), `names` ({value: display}) or `map` ([{value, name}]). Like
 * Django we allow whitespace inside the braces (`{{ enum___a___values }}`), and we also accept
 * braces separated by whitespace or line breaks (`{ {\n enum___a___values \n} }`, what a JSON
 * pretty-printer makes of a tag), with a warning because er-server would not render those.
 *
 * Tags are only looked for outside JSON strings. `{` followed (after whitespace) by `{` can never
 * start valid JSON, so every such place is a tag, well-formed or not.
 */
import { schemaIssue, type SchemaIssue } from '../issues.js';
import type { LineIndex } from '../json-text.js';

export type TagLookup = 'enum' | 'query' | 'table';
export type TagKind = 'values' | 'names' | 'map';
const LOOKUPS: readonly string[] = ['enum', 'query', 'table'];
const KINDS: readonly string[] = ['values', 'names', 'map'];

export interface ScannedTag {
  lookup: TagLookup;
  field: string;
  kind: TagKind;
  /** Offsets of the whole tag, braces included: [start, end). */
  start: number;
  end: number;
  line: number;
  column: number;
}

export interface TagScan {
  tags: ScannedTag[];
  /** Spans of every tag, well-formed or not, to be masked before JSON parsing. */
  spans: Array<[number, number]>;
  issues: SchemaIssue[];
  /** Offset of the tag each issue is about (parallel to `issues`), to give it a pointer later. */
  issueOffsets: number[];
}

const TAG_HINT = 'a tag is {{enum___<choice list>___values}} (or ___names, ___map; lookups enum, query, table)';

export function scanTemplateTags(text: string, lines: LineIndex): TagScan {
  const scan: TagScan = { tags: [], spans: [], issues: [], issueOffsets: [] };
  const report = (issue: SchemaIssue, offset: number): void => { scan.issues.push(issue); scan.issueOffsets.push(offset); };
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; continue; }
    if (c !== '{') continue;
    const second = skipSpace(text, i + 1);
    if (text[second] !== '{') continue;
    const position = lines.position(i);
    const close = text.indexOf('}', second + 1);
    const last = close < 0 ? -1 : skipSpace(text, close + 1);
    if (close < 0 || text[last] !== '}') {
      report(schemaIssue('v1_template_error', {
        message: `unterminated template tag at line ${position.line}, column ${position.column}`,
        hints: [TAG_HINT], location: position,
      }), i);
      return scan;
    }
    const end = last + 1;
    scan.spans.push([i, end]);
    const name = text.slice(second + 1, close).trim();
    const canonical = second === i + 1 && last === close + 1;
    const problem = tagProblem(name);
    if (problem) {
      report(schemaIssue('v1_template_error', {
        message: `malformed template tag {{${name}}} at line ${position.line}, column ${position.column}: ${problem}`,
        hints: [TAG_HINT], location: position,
      }), i);
    } else {
      const [lookup, field, kind] = name.split('___') as [TagLookup, string, TagKind];
      scan.tags.push({ lookup, field, kind, start: i, end, ...position });
      if (!canonical) {
        report(schemaIssue('v1_template_error', {
          severity: 'warning', location: position,
          message: `template tag {{${name}}} at line ${position.line}, column ${position.column} has its braces split by whitespace; er-server would not render it`,
          hints: [`write it as {{${name}}}`],
        }), i);
      }
    }
    i = end - 1;
  }
  return scan;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  return i;
}

/** Why a tag name is malformed (er-server: `split("___")` must give exactly 3 parts), or null. */
function tagProblem(name: string): string | null {
  if (name === '') return 'it is empty';
  if (/[\s{}"]/.test(name)) return 'it contains whitespace, braces or quotes';
  const parts = name.split('___');
  if (parts.length !== 3) return `it must have three parts separated by \`___\` (found ${parts.length})`;
  const [lookup, field, kind] = parts as [string, string, string];
  if (!LOOKUPS.includes(lookup)) return `unknown lookup \`${lookup}\` (enum, query or table)`;
  if (field === '') return 'the choice list name is empty';
  if (!KINDS.includes(kind)) return `unknown part \`${kind}\` (values, names or map)`;
  return null;
}

/**
 * `text` with every tag span replaced by the one-character JSON value `0` followed by spaces,
 * line breaks kept, so that offsets, lines and columns of the masked text are those of the
 * original and each tag's value starts at the tag's own offset.
 */
export function maskTags(text: string, spans: ReadonlyArray<[number, number]>): string {
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    out += text.slice(from, start) + '0' + text.slice(start + 1, end).replace(/[^\r\n]/g, ' ');
    from = end;
  }
  return out + text.slice(from);
}
