/** Options whose value may be left out: an undefined one keeps its default. */
type Defaults<O> = { [K in keyof O]?: Exclude<O[K], undefined> };

/**
 * The defaults, then the options a caller actually gave: an option left out or passed as
 * `undefined` never overrides a default (a plain spread would put the `undefined` in).
 */
export function withDefaults<O extends object, D extends Defaults<O>>(defaults: D, options: O | undefined): D & Omit<O, keyof D> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(options ?? {})) if (value !== undefined) merged[name] = value;
  return merged as D & Omit<O, keyof D>;
}
