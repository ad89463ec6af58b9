/** The non-blank lines of a textarea, trimmed. */
export const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
