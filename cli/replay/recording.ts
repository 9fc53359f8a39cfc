/**
 * Recordings of sensor traffic, one JSON object per line (NDJSON):
 *   {"at": "<ISO time>", "path": "/sensors/gps-radio/<key>/status", "body": {...} | [...]}
 *   {"at": "<ISO time>", "path": "/sensors/camera-trap/<provider>/status", "file": "images/x.jpg", "body": {form fields}}
 * `file` is relative to the recording. Blank lines are allowed. The whole file is checked
 * before anything is sent, so a typo on line 900 does not leave a half-replayed stream.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface RecordingLine {
  /** 1-based line number in the file. */
  line: number;
  at: number;
  path: string;
  body: unknown;
  /** Absolute path of the image of a camera-trap line. */
  file: string | null;
}

export interface RecordingProblem {
  line: number;
  message: string;
}

const SENSOR_PATH = /^(\/api\/v1\.0)?\/sensors\/[A-Za-z0-9_-]+\/[^/?#\s]+\/status\/?$/;
const OFFSET = /(Z|[+-]\d\d:?\d\d)$/i;

/**
 * `allowOutside`: a line's `file` may name an image outside the recording's folder. Off by
 * default: a recording from elsewhere must not be able to upload any file this user can read.
 */
export function parseRecording(text: string, recordingPath: string, options: { allowOutside?: boolean } = {}): { lines: RecordingLine[]; problems: RecordingProblem[] } {
  const lines: RecordingLine[] = [];
  const problems: RecordingProblem[] = [];
  const directory = path.dirname(path.resolve(recordingPath));
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(raw);
    } catch (error) {
      problems.push({ line, message: `not JSON (${(error as Error).message})` });
      return;
    }
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return void problems.push({ line, message: 'not a JSON object' });
    const at = typeof entry.at === 'string' && OFFSET.test(entry.at) ? Date.parse(entry.at) : NaN;
    if (Number.isNaN(at)) return void problems.push({ line, message: '`at` must be an ISO 8601 time with an offset, e.g. "2026-11-20T10:00:00Z"' });
    if (typeof entry.path !== 'string' || !SENSOR_PATH.test(entry.path)) {
      return void problems.push({ line, message: '`path` must be a sensor status path such as "/sensors/gps-radio/<provider_key>/status"' });
    }
    const camera = /\/sensors\/camera-trap\//.test(entry.path);
    let file: string | null = null;
    if (camera) {
      if (typeof entry.file !== 'string') return void problems.push({ line, message: 'a camera-trap line needs `file`: the image, relative to the recording' });
      file = path.resolve(directory, entry.file);
      if (!fs.existsSync(file)) return void problems.push({ line, message: `image not found: ${entry.file}` });
      if (!options.allowOutside && !isInside(directory, file)) {
        return void problems.push({ line, message: `\`file\` ${entry.file} is outside the recording's folder (${directory}); pass --allow-outside if you trust this recording` });
      }
      if (entry.body !== undefined && (typeof entry.body !== 'object' || entry.body === null || Array.isArray(entry.body))) {
        return void problems.push({ line, message: 'the `body` of a camera-trap line holds its form fields: an object' });
      }
    } else if (typeof entry.body !== 'object' || entry.body === null) {
      return void problems.push({ line, message: '`body` must be an object (or an array of observations)' });
    }
    lines.push({ line, at, path: entry.path, body: entry.body ?? {}, file });
  });
  return { lines, problems };
}

/** The real path of `file` (symbolic links followed) lies under the real path of `directory`. */
function isInside(directory: string, file: string): boolean {
  const relative = path.relative(fs.realpathSync(directory), fs.realpathSync(file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
