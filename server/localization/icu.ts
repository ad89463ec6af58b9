/**
 * Just enough of ICU MessageFormat (what next-intl speaks) to check an override of a
 * hosted-page message: its arguments (`{name}`, `{count, plural, one {…} other {…}}`) and
 * balanced braces. Apostrophe quoting (`'{'`) escapes a brace, as in ICU.
 */
export interface IcuParse {
  args: Set<string>;
  /** The first syntax error, with its 1-based offset, or null. */
  error: { offset: number; message: string } | null;
}

const ARG_RE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*([A-Za-z]+)\s*)?/;

export function parseIcu(source: string): IcuParse {
  const args = new Set<string>();
  let i = 0;

  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { offset: i + 1 });
  };

  // Message text until an unmatched `}` (nested) or the end (top level).
  const message = (nested: boolean) => {
    while (i < source.length) {
      const ch = source[i]!;
      if (ch === "'" && (source[i + 1] === '{' || source[i + 1] === '}' || source[i + 1] === "'")) {
        const close = source.indexOf("'", i + 1);
        i = close < 0 ? source.length : close + 1;
      } else if (ch === '{') {
        i++;
        argument();
      } else if (ch === '}') {
        if (nested) return;
        fail('Unexpected "}": is a "{" missing?');
      } else i++;
    }
    if (nested) fail('A "{" is not closed.');
  };

  const argument = () => {
    const m = ARG_RE.exec(source.slice(i));
    if (!m) fail('An argument must start with a name, as in {name}.');
    args.add(m![1]!);
    i += m![0].length;
    const type = m![2];
    if (source[i] === '}') {
      i++;
      return;
    }
    if (!type || source[i] !== ',') fail(`Expected "}" after {${m![1]}${type ? `, ${type}` : ''}.`);
    if (type === 'plural' || type === 'select' || type === 'selectordinal') {
      i++; // the comma before the branches
      let branches = 0;
      for (;;) {
        while (/\s/.test(source[i] ?? '')) i++;
        if (source[i] === '}') break;
        const sel = /^(=?[A-Za-z0-9_]+|offset:\d+)\s*/.exec(source.slice(i));
        if (!sel) fail(`Expected a ${type} case such as "other {…}".`);
        i += sel![0].length;
        if (sel![1]!.startsWith('offset:')) continue;
        if (source[i] !== '{') fail(`Expected "{" after the case "${sel![1]}".`);
        i++;
        message(true);
        i++; // its "}"
        branches++;
      }
      if (!branches) fail(`A ${type} needs at least the "other" case.`);
      i++;
      return;
    }
    // number/date/time with a style: skip to the closing brace.
    const close = source.indexOf('}', i);
    if (close < 0) fail('A "{" is not closed.');
    i = close + 1;
  };

  try {
    message(false);
    return { args, error: null };
  } catch (e) {
    return { args, error: { offset: (e as { offset?: number }).offset ?? 1, message: (e as Error).message } };
  }
}

export const messageArguments = (source: string) => parseIcu(source).args;
