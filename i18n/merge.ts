const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Sets dotted-key overrides (`signUp.title` → text) into a nested next-intl messages
 * object, returning a copy. Pure: the hosted pages (browser) and the server share it.
 */
export function mergeHostedMessages<T extends Record<string, unknown>>(messages: T, overrides: Record<string, string>): T {
  const out = structuredClone(messages) as Record<string, unknown>;
  for (const [key, text] of Object.entries(overrides)) {
    const parts = key.split('.');
    if (parts.some((p) => UNSAFE_KEYS.has(p))) continue;
    let node = out;
    for (const p of parts.slice(0, -1)) {
      const next = node[p];
      if (!next || typeof next !== 'object') node[p] = {};
      node = node[p] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = text;
  }
  return out as T;
}
