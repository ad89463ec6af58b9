import { CATALOGS } from '../../messages';
import type { Locale } from '../../i18n/locales';
import { hostedLocale } from '../localization/hosted-locale';
import { autoPost, escapeHtml, hiddenInputs } from '../http/auto-post-form';
import { plainPage } from '../http/plain-page';

/**
 * The provider's own hosted pages (consent, errors, logout), rendered by the OIDC router as
 * plain HTML forms: they work without JavaScript and a test drives them over HTTP. Copy
 * comes from `messages/<locale>/oauth.json` (en, fr, de).
 */
type Copy = (typeof CATALOGS)['en']['oauth'];

const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

export interface PageLocale {
  locale: Locale;
  copy: Copy;
}

/** The page language: OIDC `ui_locales` (space-separated), the hosted pages' cookie, the user's, Accept-Language, the instance default. */
export function pageLocale(p: {
  uiLocales?: string | null;
  cookie?: string | null;
  userLocale?: string | null;
  acceptLanguage?: string | null;
  instanceDefault?: string | null;
}): PageLocale {
  const explicit = p.uiLocales?.split(' ').find(Boolean) ?? p.cookie ?? null;
  const { locale } = hostedLocale({
    explicit,
    userLocale: p.userLocale,
    acceptLanguage: p.acceptLanguage,
    instanceDefault: p.instanceDefault,
  });
  return { locale, copy: CATALOGS[locale].oauth };
}

/** What each scope lets the app do, as list items. */
function scopeItems(copy: Copy, scopes: string[]) {
  const scopeText = (s: string) =>
    s in copy.consent.scopes && s !== 'other'
      ? copy.consent.scopes[s as keyof Copy['consent']['scopes']]
      : fill(copy.consent.scopes.other, { scope: s });
  return scopes.map((s) => `<li>${escapeHtml(scopeText(s))}</li>`).join('');
}

export function consentPage(
  l: PageLocale,
  a: {
    action: string;
    appName: string;
    user: string;
    scopes: string[];
    params: Record<string, string>;
    /** The app's privacy policy and terms (registered as policy_uri / tos_uri, RFC 7591 §2), linked for the user to read. */
    policyUri?: string;
    tosUri?: string;
  },
): string {
  const { copy } = l;
  const items = scopeItems(copy, a.scopes);
  const docs = [
    a.policyUri
      ? `<a href="${escapeHtml(a.policyUri)}" rel="noopener noreferrer" target="_blank">${escapeHtml(copy.consent.policy)}</a>`
      : '',
    a.tosUri ? `<a href="${escapeHtml(a.tosUri)}" rel="noopener noreferrer" target="_blank">${escapeHtml(copy.consent.terms)}</a>` : '',
  ].filter(Boolean);
  const links = docs.length ? `<p><small>${escapeHtml(fill(copy.consent.links, { app: a.appName }))} ${docs.join(' · ')}</small></p>` : '';
  const body =
    `<p><small>${escapeHtml(fill(copy.consent.signedInAs, { user: a.user }))}</small></p>` +
    `<p>${escapeHtml(fill(copy.consent.intro, { app: a.appName }))}</p><ul>${items}</ul>` +
    links +
    `<form method="post" action="${escapeHtml(a.action)}">${hiddenInputs(a.params)}<div class="actions">` +
    `<button type="submit" name="decision" value="deny">${escapeHtml(copy.consent.deny)}</button>` +
    `<button type="submit" name="decision" value="allow">${escapeHtml(copy.consent.allow)}</button></div></form>` +
    `<p><small>${escapeHtml(copy.consent.note)}</small></p>`;
  return plainPage(l.locale, fill(copy.consent.title, { app: a.appName }), body);
}

export const providerErrorPage = (l: PageLocale, message: string, traceId: string) =>
  plainPage(l.locale, l.copy.error.title, `<p>${escapeHtml(message)}</p><p><small>${escapeHtml(traceId)}</small></p>`);

export const logoutConfirmPage = (l: PageLocale, action: string, params: Record<string, string>) =>
  plainPage(
    l.locale,
    l.copy.logout.confirmTitle,
    `<form method="post" action="${escapeHtml(action)}">${hiddenInputs({ ...params, confirm: '1' })}<div class="actions"><button class="primary" type="submit">${escapeHtml(l.copy.logout.confirm)}</button></div></form>`,
  );

export const loggedOutPage = (l: PageLocale) => plainPage(l.locale, l.copy.logout.done, '');

/**
 * OAuth 2.0 Form Post Response Mode: a page whose form posts the answer to the redirect_uri
 * as soon as it loads (a button when scripts are off); the form may go only to the redirect_uri's origin.
 */
export function formPostPage(l: PageLocale, redirectUri: string, values: Record<string, string>) {
  const button = `<div class="actions"><button class="primary" type="submit">${escapeHtml(l.copy.formPost.submit)}</button></div>`;
  const { markup, headers } = autoPost(redirectUri, values, button, { inlineStyles: true, formActionOrigin: new URL(redirectUri).origin });
  return { html: plainPage(l.locale, l.copy.formPost.title, markup), headers };
}

/** The device flow's verification page (RFC 8628 §3.3): the user types the code their device shows. */
export function deviceEntryPage(l: PageLocale, a: { action: string; userCode?: string; message?: 'invalid' | 'tooMany' }) {
  const { device } = l.copy;
  const body =
    (a.message ? `<p role="alert">${escapeHtml(device[a.message])}</p>` : `<p>${escapeHtml(device.intro)}</p>`) +
    `<form method="post" action="${escapeHtml(a.action)}"><p><label>${escapeHtml(device.label)}<br>` +
    `<input name="user_code" value="${escapeHtml(a.userCode ?? '')}" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" maxlength="20" required autofocus></label></p>` +
    `<div class="actions"><button class="primary" type="submit">${escapeHtml(device.submit)}</button></div></form>`;
  return plainPage(l.locale, device.title, body);
}

/** The app, the scopes and the code the user is about to approve (RFC 8628 §5.4: they check it matches the device's). */
export function deviceConfirmPage(l: PageLocale, a: { action: string; appName: string; user: string; scopes: string[]; userCode: string }) {
  const { copy } = l;
  const body =
    `<p><small>${escapeHtml(fill(copy.consent.signedInAs, { user: a.user }))}</small></p>` +
    `<p>${escapeHtml(fill(copy.device.confirmIntro, { app: a.appName }))}</p><ul>${scopeItems(copy, a.scopes)}</ul>` +
    `<p><strong>${escapeHtml(fill(copy.device.codeShown, { code: a.userCode }))}</strong></p>` +
    `<form method="post" action="${escapeHtml(a.action)}">${hiddenInputs({ user_code: a.userCode })}<div class="actions">` +
    `<button type="submit" name="decision" value="deny">${escapeHtml(copy.device.deny)}</button>` +
    `<button type="submit" name="decision" value="allow">${escapeHtml(copy.device.allow)}</button></div></form>`;
  return plainPage(l.locale, fill(copy.device.confirmTitle, { app: a.appName }), body);
}

export const deviceDonePage = (l: PageLocale, outcome: 'approved' | 'denied' | 'unavailable') =>
  plainPage(l.locale, l.copy.device.title, `<p role="status">${escapeHtml(l.copy.device[outcome])}</p>`);
