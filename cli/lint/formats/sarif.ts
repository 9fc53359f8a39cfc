/**
 * SARIF 2.1.0 (OASIS), the format code-scanning services ingest. One run; one rule per issue
 * code; each result with the file, line and column (UTF-16 code units, as the toolkit counts)
 * and the JSON Pointer as a logical location. The structure is typed by `@types/sarif`.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import type { Formatter } from '../report.js';

const RULES: Record<string, string> = {
  no_schema_defined: 'The stored document is empty.',
  schema_parsing_error: 'The file is not valid JSON.',
  schema_structure_error: 'The document is not a {json, ui} envelope, or has keys that do not belong there.',
  schema_validation_error: 'The JSON Schema breaks the 2020-12 meta-schema or a field-kind rule.',
  schema_version_error: 'The document is not a JSON Schema 2020-12 (v2) document.',
  ui_reference_error: 'A ui entry names a field, section or header that does not exist.',
  ui_definition_error: 'A ui entry has a wrong type or value.',
  unresolvable_reference: 'A $ref cannot be resolved (external URL, dangling pointer, or unknown choice list).',
  schema_rendering_error: 'A choice source answered something that is not a list of choices.',
  v1_template_error: 'A v1 template tag is malformed.',
  migration_warning: 'v1 to v2 migration could not carry something over exactly.',
  'breaking/removed-field': 'A field that stored events hold was removed.',
  'breaking/removed-choice': 'A choice value that stored events hold was removed.',
  'breaking/narrowed-type': 'A type or constraint was narrowed: stored values no longer validate.',
  'breaking/required-added': 'A field was made required that stored events lack.',
  'breaking/renamed-value': 'The event type\'s value was renamed: stored events keep the old one.',
  'compat/no-usage-summary': 'No usage summary was kept for the type: the schemas were compared without what stored events hold.',
};

export const sarif: Formatter = (report, { toolVersion }) => {
  const cwd = process.cwd();
  const codes = [...new Set(report.files.flatMap((f) => f.findings.map((x) => x.code)))].sort();
  const rules: ReportingDescriptor[] = codes.map((code) => ({
    id: code,
    name: code.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase()),
    shortDescription: { text: RULES[code] ?? code },
    properties: { category: report.files.flatMap((f) => f.findings).find((x) => x.code === code)?.category },
  }));
  const results: Result[] = report.files.flatMap((file) =>
    file.findings.map((f): Result => {
      const absolute = path.resolve(cwd, file.path);
      const relative = !path.isAbsolute(file.path);
      return {
        ruleId: f.code,
        ruleIndex: codes.indexOf(f.code),
        level: f.severity,
        message: { text: [f.message, ...f.hints.map((h) => `Hint: ${h}`)].join(' ') },
        locations: [
          {
            physicalLocation: {
              artifactLocation: relative ? { uri: file.path, uriBaseId: 'SRCROOT' } : { uri: pathToFileURL(absolute).href },
              region: { startLine: f.line, startColumn: f.column },
            },
            logicalLocations: [{ fullyQualifiedName: f.pointer || '/', kind: 'member' }],
          },
        ],
        ...(f.affected_events !== undefined || f.allowed
          ? { properties: { ...(f.affected_events !== undefined ? { affectedEvents: f.affected_events, affectedAtLeast: Boolean(f.affected_at_least) } : {}), ...(f.allowed ? { allowedReason: f.allowed.reason } : {}) } }
          : {}),
        // Stable across line moves: the same problem at the same pointer is the same alert.
        partialFingerprints: { 'fieldopsPointer/v1': createHash('sha256').update(`${file.path}\n${f.code}\n${f.pointer}`).digest('hex').slice(0, 32) },
      };
    }),
  );
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'fieldops', semanticVersion: toolVersion, version: toolVersion, rules } },
        originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(cwd + path.sep).href } },
        columnKind: 'utf16CodeUnits',
        invocations: [{ executionSuccessful: true, ...(report.against ? { properties: { against: report.against.source, allowedBreaks: report.against.allowed } } : {}) }],
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + '\n';
};
