/**
 * An upper bound of the size of the program RE2 compiles a pattern into (its instructions), from
 * the ECMA-262 source. RE2 matches in time linear in the input, but the factor is the program
 * size when its DFA gives up: `(a{0,1}a{0,2}...a{0,50})*b` (686 characters, ~2,500
 * instructions) took 12 s per 100,000 characters. So the program size is capped as well as the
 * engine chosen (regex-engine.ts).
 *
 * Counting: an atom (character, escape, class, `.`, assertion) is 1; a group is its content + 1;
 * alternatives add up (+1 each); `*`, `+`, `?` add 1; `{m,n}` multiplies by n (`{m}` by m, `{m,}`
 * by m + 1), as RE2 expands counted repetition into copies. The source must already be valid
 * ECMA-262 with the `u` flag (so `{` is always a quantifier and quantifiers do not stack).
 * Work: one pass over the source.
 */
export function regexProgramSize(source: string): number {
  let i = 0;
  const peek = (): string | undefined => source[i];

  const alternation = (): number => {
    let total = sequence();
    while (peek() === '|') {
      i++;
      total += sequence() + 1;
    }
    return total;
  };

  const sequence = (): number => {
    let total = 0;
    while (i < source.length && peek() !== '|' && peek() !== ')') total += quantified(atom());
    return total;
  };

  const skipPast = (close: string): void => {
    const end = source.indexOf(close, i);
    i = end < 0 ? source.length : end + 1;
  };

  const atom = (): number => {
    const c = source[i++];
    if (c === '(') {
      if (peek() === '?') {
        i++;
        if (peek() === '<' && source[i + 1] !== '=' && source[i + 1] !== '!') skipPast('>');
        else i += peek() === '<' ? 2 : 1;
      }
      const inner = alternation();
      i++; // ')'
      return inner + 1;
    }
    if (c === '[') {
      while (i < source.length && peek() !== ']') i += peek() === '\\' ? 2 : 1;
      i++;
      return 1;
    }
    if (c === '\\') {
      const e = source[i++];
      if ((e === 'u' || e === 'p' || e === 'P') && peek() === '{') skipPast('}');
      return 1;
    }
    return 1;
  };

  const digits = (): number => {
    const start = i;
    while (i < source.length && (source[i] as string) >= '0' && (source[i] as string) <= '9') i++;
    return Number(source.slice(start, i));
  };

  const quantified = (size: number): number => {
    const c = peek();
    if (c === '*' || c === '+' || c === '?') {
      i++;
      if (peek() === '?') i++;
      return size + 1;
    }
    if (c !== '{') return size;
    i++;
    const low = digits();
    let high = low;
    if (peek() === ',') {
      i++;
      high = peek() === '}' ? low + 1 : digits();
    }
    i++; // '}'
    if (peek() === '?') i++;
    return size * Math.max(high, 1) + 1;
  };

  return alternation();
}
