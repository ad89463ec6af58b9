/**
 * Set by `npm start` on a request that came in on an instance's custom domain (and
 * stripped from every other request, so a client cannot send it): proxy.ts serves the host
 * root as that instance's hosted pages, which then live at `/` instead of
 * `/fapi/<instance_id>`. No imports: the server, proxy.ts and the pages share it.
 */
export const CUSTOM_DOMAIN_INSTANCE_HEADER = 'x-latchkey-custom-domain-instance';

/** The path hosted pages and their FAPI calls live under: '' on the instance's custom domain, else `/fapi/<instance_id>`. */
export const hostedBase = (instanceId: string, customDomainInstance: string | null | undefined) =>
  customDomainInstance === instanceId ? '' : `/fapi/${encodeURIComponent(instanceId)}`;
