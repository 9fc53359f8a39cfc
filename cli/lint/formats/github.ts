/**
 * GitHub Actions workflow commands: one `::error`/`::warning` annotation per finding, shown on
 * the pull request's diff. Values are escaped as the runner expects (`%`, CR, LF; in
 * properties also `:` and `,`).
 */
import { plural, summarise, type Formatter } from '../report.js';

const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

export const github: Formatter = (report) => {
  let text = '';
  for (const file of report.files) {
    for (const f of file.findings) {
      const properties = `file=${escapeProperty(file.path)},line=${f.line},col=${f.column},title=${escapeProperty(`fieldops ${f.code}`)}`;
      const message = [f.message, ...f.hints.map((h) => `hint: ${h}`), `at ${f.pointer || '/'}`].join('\n');
      text += `::${f.severity} ${properties}::${escapeData(message)}\n`;
    }
  }
  const s = summarise(report);
  return text + `fieldops lint: ${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')} in ${plural(s.documents, 'document')}\n`;
};
