/**
 * JUnit XML for CI test tabs: one test suite per file, one test case per document (or one for
 * a file with none, e.g. unparsable JSON); a case fails on errors, warnings are listed in
 * `system-out` and do not fail it.
 */
import type { Formatter } from '../report.js';

const xml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 cannot carry most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export const junit: Formatter = (report) => {
  const cases = report.files.filter((f) => !f.skipped).reduce((n, f) => n + Math.max(1, f.documents.length), 0);
  let text = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="fieldops lint" tests="${cases}" failures="${countFailures(report)}" errors="0">\n`;
  for (const file of report.files) {
    if (file.skipped) continue;
    const documents = file.documents.length ? file.documents : [''];
    const failing = documents.filter((d) => file.findings.some((f) => f.document === d && f.severity === 'error')).length;
    text += `  <testsuite name="${xml(file.path)}" tests="${documents.length}" failures="${failing}" errors="0" skipped="0">\n`;
    for (const document of documents) {
      const findings = file.findings.filter((f) => f.document === document);
      const errors = findings.filter((f) => f.severity === 'error');
      const warnings = findings.filter((f) => f.severity === 'warning');
      const line = (f: (typeof findings)[number]) => `${file.path}:${f.line}:${f.column} ${f.severity} ${f.code} ${f.pointer || '/'}: ${f.message}${f.hints.map((h) => ` (hint: ${h})`).join('')}`;
      text += `    <testcase classname="${xml(file.path)}" name="${xml(document === '' ? '(document)' : document)}"`;
      if (errors.length === 0 && warnings.length === 0) {
        text += ' />\n';
        continue;
      }
      text += '>\n';
      if (errors.length) {
        text += `      <failure message="${xml(`${errors.length} error${errors.length === 1 ? '' : 's'}: ${errors[0]!.message}`)}" type="${xml(errors[0]!.code)}">${xml(errors.map(line).join('\n'))}</failure>\n`;
      }
      if (warnings.length) text += `      <system-out>${xml(warnings.map(line).join('\n'))}</system-out>\n`;
      text += '    </testcase>\n';
    }
    text += '  </testsuite>\n';
  }
  return text + '</testsuites>\n';
};

function countFailures(report: Parameters<Formatter>[0]): number {
  return report.files.reduce(
    (n, file) => n + new Set(file.findings.filter((f) => f.severity === 'error').map((f) => f.document)).size,
    0,
  );
}
