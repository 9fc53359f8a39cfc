import t from 'tap';
import { parseIsoWithOffset } from '../../server/domain/time-input.js';

/** The parser as it was before it computed from the fields: Date.parse does the arithmetic. */
function byDateParse(raw: string): number | null {
  const text = raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1');
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute] = match.map(Number) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || Number(match[6] ?? 0) > 59) return null;
  const millis = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(millis)) return null;
  const check = new Date(Date.UTC(year!, month! - 1, day!));
  return check.getUTCDate() === day ? millis : null;
}

t.test('known values', async (t) => {
  t.equal(parseIsoWithOffset('2026-11-20T10:00:00.000+00:00'), Date.UTC(2026, 10, 20, 10));
  t.equal(parseIsoWithOffset('2026-11-20T10:00:00+02:00'), Date.UTC(2026, 10, 20, 8));
  t.equal(parseIsoWithOffset('2026-11-20T10:00-0530'), Date.UTC(2026, 10, 20, 15, 30));
  t.equal(parseIsoWithOffset('2026-11-20t10:00:00.5z'), Date.UTC(2026, 10, 20, 10, 0, 0, 500), 'lower-case t and z, a one-digit fraction');
  t.equal(parseIsoWithOffset('2026-11-20T10:00:00.123456789Z'), Date.UTC(2026, 10, 20, 10, 0, 0, 123), 'nanoseconds truncated to milliseconds');
  t.equal(parseIsoWithOffset('2026-11-20T10:00:00 01:00'), Date.UTC(2026, 10, 20, 9), 'a + decoded to a space');
  t.equal(parseIsoWithOffset('0050-03-01T00:00:00Z'), new Date('0050-03-01T00:00:00Z').getTime(), 'a year below 100 is that year, not 19xx');
  t.equal(parseIsoWithOffset('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29), 'a leap day');
  t.equal(parseIsoWithOffset('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29), 'a leap day of a year divisible by 400');
  t.equal(parseIsoWithOffset('1969-12-31T23:59:59.999Z'), -1, 'before 1970');
  t.equal(parseIsoWithOffset('\u00a0 2026-11-20T10:00:00Z\n'), Date.UTC(2026, 10, 20, 10), 'surrounding white space, a no-break space too');
  for (const bad of ['1900-02-29T00:00:00Z', '2026-11-20T10:00:00.1234567890Z', '2026-11-20T10:00:00.Z', '2026-11-20T10:00:00Zz', '2026-11-20T10:00:00+01:00:00', '2026-11-20T10:00:00+1:00', '2026-11-20T10:0a:00Z', '２０２６-11-20T10:00:00Z', '2026-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-11-20T10:00:00', '2026-11-20T24:00:00Z', '2026-11-20T10:00:60Z', '2026-11-20T10:00:00+24:00', '2026-11-20T10:00:00+01:60', '2026-13-01T00:00:00Z', 'yesterday', '']) {
    t.equal(parseIsoWithOffset(bad), null, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('agrees with Date.parse on 20,000 generated date-times, valid and not', async (t) => {
  let seed = 17;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  let disagreements = 0;
  let valid = 0;
  for (let i = 0; i < 20000; i++) {
    const fraction = random(3) === 0 ? '' : `.${pad(random(1e9), 9).slice(0, 1 + random(9))}`;
    const seconds = random(4) === 0 ? '' : `:${pad(random(62), 2)}${fraction}`;
    const offset = [() => 'Z', () => `${random(2) ? '+' : '-'}${pad(random(26), 2)}:${pad(random(62), 2)}`, () => `${random(2) ? '+' : '-'}${pad(random(25), 2)}${pad(random(60), 2)}`][random(3)]!();
    const text = `${pad(random(3) === 0 ? random(10000) : 1900 + random(200), 4)}-${pad(random(14), 2)}-${pad(random(33), 2)}T${pad(random(25), 2)}:${pad(random(61), 2)}${seconds}${offset}`;
    const expected = byDateParse(text);
    if (expected !== null) valid++;
    if (parseIsoWithOffset(text) !== expected && disagreements++ < 5) t.fail(`${text}: ${parseIsoWithOffset(text)} but Date.parse says ${expected}`);
  }
  t.equal(disagreements, 0, 'no disagreement');
  t.ok(valid > 2000, `${valid} of them valid`);
});
