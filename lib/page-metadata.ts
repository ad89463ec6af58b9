import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';

/** A page's `generateMetadata`: the title is message `key` of `namespace` in the request's language, plus `extra` (robots, referrer…). */
export function titled(namespace: string, key: string, extra: Metadata = {}) {
  return async (): Promise<Metadata> => {
    const t = await getTranslations(namespace);
    return { title: t(key), ...extra };
  };
}

/** A hosted end-user page's `generateMetadata`: titled from hosted.titles, kept out of search indexes. */
export const hostedTitled = (key: string) => titled('hosted.titles', key, { robots: { index: false } });
