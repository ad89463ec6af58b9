import type { Locale } from '../i18n/locales';
import commonDe from './de/common.json';
import consoleDe from './de/console.json';
import hostedDe from './de/hosted.json';
import templatesDe from './de/templates.json';
import organizationsDe from './de/organizations.json';
import webhooksDe from './de/webhooks.json';
import domainsDe from './de/domains.json';
import limitsDe from './de/limits.json';
import directoryDe from './de/directory.json';
import oauthDe from './de/oauth.json';
import apikeysDe from './de/apikeys.json';
import waitlistDe from './de/waitlist.json';
import socialDe from './de/social.json';
import commonEn from './en/common.json';
import consoleEn from './en/console.json';
import hostedEn from './en/hosted.json';
import templatesEn from './en/templates.json';
import organizationsEn from './en/organizations.json';
import webhooksEn from './en/webhooks.json';
import domainsEn from './en/domains.json';
import limitsEn from './en/limits.json';
import directoryEn from './en/directory.json';
import oauthEn from './en/oauth.json';
import apikeysEn from './en/apikeys.json';
import waitlistEn from './en/waitlist.json';
import socialEn from './en/social.json';
import commonFr from './fr/common.json';
import consoleFr from './fr/console.json';
import hostedFr from './fr/hosted.json';
import templatesFr from './fr/templates.json';
import organizationsFr from './fr/organizations.json';
import webhooksFr from './fr/webhooks.json';
import domainsFr from './fr/domains.json';
import limitsFr from './fr/limits.json';
import directoryFr from './fr/directory.json';
import protectionDe from './de/protection.json';
import protectionEn from './en/protection.json';
import protectionFr from './fr/protection.json';
import oauthFr from './fr/oauth.json';
import apikeysFr from './fr/apikeys.json';
import billingEn from './en/billing.json';
import billingFr from './fr/billing.json';
import billingDe from './de/billing.json';
import ltiEn from './en/lti.json';
import ltiFr from './fr/lti.json';
import ltiDe from './de/lti.json';
import waitlistFr from './fr/waitlist.json';
import socialFr from './fr/social.json';
import ssoDe from './de/sso.json';
import ssoEn from './en/sso.json';
import ssoFr from './fr/sso.json';
import passkeysEn from './en/passkeys.json';
import passkeysFr from './fr/passkeys.json';
import passkeysDe from './de/passkeys.json';
import portalEn from './en/portal.json';
import portalFr from './fr/portal.json';
import portalDe from './de/portal.json';

/**
 * next-intl catalogs, one file per namespace so features can add theirs without
 * touching another's. Every locale must hold every key of `en` (catalogs.test.ts).
 */
export const CATALOGS = {
  en: {
    common: commonEn,
    console: consoleEn,
    hosted: hostedEn,
    organizations: organizationsEn,
    templates: templatesEn,
    webhooks: webhooksEn,
    domains: domainsEn,
    limits: limitsEn,
    directory: directoryEn,
    protection: protectionEn,
    oauth: oauthEn,
    apikeys: apikeysEn,
    billing: billingEn,
    lti: ltiEn,
    waitlist: waitlistEn,
    social: socialEn,
    sso: ssoEn,
    passkeys: passkeysEn,
    portal: portalEn,
  },
  fr: {
    common: commonFr,
    console: consoleFr,
    hosted: hostedFr,
    organizations: organizationsFr,
    templates: templatesFr,
    webhooks: webhooksFr,
    domains: domainsFr,
    limits: limitsFr,
    directory: directoryFr,
    protection: protectionFr,
    oauth: oauthFr,
    apikeys: apikeysFr,
    billing: billingFr,
    lti: ltiFr,
    waitlist: waitlistFr,
    social: socialFr,
    sso: ssoFr,
    passkeys: passkeysFr,
    portal: portalFr,
  },
  de: {
    common: commonDe,
    console: consoleDe,
    hosted: hostedDe,
    organizations: organizationsDe,
    templates: templatesDe,
    webhooks: webhooksDe,
    domains: domainsDe,
    limits: limitsDe,
    directory: directoryDe,
    protection: protectionDe,
    oauth: oauthDe,
    apikeys: apikeysDe,
    billing: billingDe,
    lti: ltiDe,
    waitlist: waitlistDe,
    social: socialDe,
    sso: ssoDe,
    passkeys: passkeysDe,
    portal: portalDe,
  },
} satisfies Record<Locale, Record<string, unknown>>;

export type Messages = (typeof CATALOGS)['en'];

export function loadMessages(locale: Locale): Messages {
  return CATALOGS[locale] as Messages;
}
