/** An ILIKE pattern matching values that contain `q` literally (its `%`, `_` and `\` escaped). */
export const containsPattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
