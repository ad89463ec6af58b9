import { cookies, headers } from 'next/headers';
import { getRequestConfig } from 'next-intl/server';
import { loadMessages } from '../messages';
import { LOCALE_COOKIE, LOCALE_HEADER, resolveLocale } from './locales';

export default getRequestConfig(async () => {
  const [headerList, cookieStore] = await Promise.all([headers(), cookies()]);
  const locale = resolveLocale({
    explicit: headerList.get(LOCALE_HEADER),
    cookie: cookieStore.get(LOCALE_COOKIE)?.value,
    acceptLanguage: headerList.get('accept-language'),
  });
  return { locale, messages: loadMessages(locale) };
});
