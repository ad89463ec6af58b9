/** An ILIKE pattern matching values that contain `q` literally (its `%`, `_` and `\` escaped). */
export const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** A LIKE pattern matching values that start with `q` literally. */
export const prefixPattern = (q: string) => `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
