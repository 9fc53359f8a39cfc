/** ESLint's "stylish" layout: findings grouped by file, `line:column  severity  message  code`. */
import { createStyle, visibleLength } from '../../output/style.js';
import { plural, summarise, type Formatter } from '../report.js';

export const stylish: Formatter = (report, { color }) => {
  const style = createStyle(color);
  let text = '';
  for (const file of report.files) {
    if (file.findings.length === 0) continue;
    text += `\n${style.bold(file.path)}\n`;
    const rows = file.findings.map((f) => [
      `${f.line}:${f.column}`,
      f.severity === 'error' ? style.red('error') : style.yellow('warning'),
      f.message,
      style.dim(f.code),
      f.hints,
    ] as const);
    const w0 = Math.max(...rows.map((r) => r[0].length));
    const w1 = Math.max(...rows.map((r) => visibleLength(r[1])));
    for (const [position, severity, message, code, hints] of rows) {
      text += `  ${position.padEnd(w0)}  ${severity}${' '.repeat(w1 - visibleLength(severity))}  ${message}  ${code}\n`;
      for (const hint of hints) text += `  ${' '.repeat(w0 + w1 + 4)}${style.dim(`hint: ${hint}`)}\n`;
    }
  }
  const s = summarise(report);
  const problems = s.errors + s.warnings;
  const checked = `${plural(s.documents, 'document')} in ${plural(s.files, 'file')}${s.skipped ? ` (${s.skipped} skipped)` : ''}`;
  if (problems === 0) return text + `${style.green('✔')} no problems: ${checked}\n`;
  const line = `✖ ${plural(problems, 'problem')} (${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}) in ${checked}`;
  return text + '\n' + (s.errors > 0 ? style.red(style.bold(line)) : style.yellow(style.bold(line))) + '\n';
};
