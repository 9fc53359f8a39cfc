/**
 * A string matching a simple pattern (anchors, literals, `\d`, `.`, classes with ranges,
 * quantifiers `? * + {n} {n,m}`), or null for anything else (groups, alternation): the
 * generator then leaves the field out. Enough for the patterns real event types use.
 */
import type { Rng } from './prng.js';

export function stringForPattern(pattern: string, rng: Rng): string | null {
  let out = '';
  let i = 0;
  const classChars = (body: string): string[] | null => {
    const chars: string[] = [];
    for (let k = 0; k < body.length; k++) {
      let c = body[k]!;
      if (c === '\\') { c = body[++k] ?? ''; if (c === 'd') { chars.push(...'0123456789'); continue; } }
      if (body[k + 1] === '-' && k + 2 < body.length) {
        const end = body[k + 2]!;
        for (let x = c.charCodeAt(0); x <= end.charCodeAt(0); x++) chars.push(String.fromCharCode(x));
        k += 2;
      } else chars.push(c);
    }
    return chars.length > 0 ? chars : null;
  };
  while (i < pattern.length) {
    const c = pattern[i]!;
    let atom: string[] | null;
    if (c === '^' || c === '$') { i++; continue; }
    if (c === '(' || c === '|' || c === ')') return null;
    if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0 || pattern[i + 1] === '^') return null;
      atom = classChars(pattern.slice(i + 1, end));
      i = end + 1;
    } else if (c === '\\') {
      const e = pattern[i + 1] ?? '';
      atom = e === 'd' ? [...'0123456789'] : e === 'w' ? [...'abc'] : /[a-zA-Z]/.test(e) ? null : [e];
      i += 2;
    } else if (c === '.') { atom = ['a']; i++; } else { atom = [c]; i++; }
    if (!atom) return null;
    let lo = 1; let hi = 1;
    const q = pattern[i];
    if (q === '?') { lo = 0; hi = 1; i++; } else if (q === '*') { lo = 0; hi = 3; i++; } else if (q === '+') { lo = 1; hi = 3; i++; } else if (q === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) return null;
      lo = Number(m[1]); hi = m[2] ? (m[3] ? Number(m[3]) : lo + 2) : lo;
      i += m[0].length;
    }
    const n = rng.int(lo, hi);
    for (let k = 0; k < n; k++) out += rng.pick(atom);
  }
  return out;
}
