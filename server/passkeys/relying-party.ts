import type { InstanceContext } from '../instances/instances';
import { originOf } from '../http/origin';

/**
 * The WebAuthn relying party of a request: its id is the host of the fapi_url the request
 * came in by (the custom domain, or PUBLIC_URL's host for `{PUBLIC_URL}/fapi/<id>`), so a
 * passkey works where the hosted pages run. The origins a ceremony may come from are the
 * fapi_url's own and those of the instance's `allowed_origins` on that host or one of its
 * subdomains (the only origins a browser lets use that rpId); any other origin is refused by
 * the verification.
 *
 * Instances reached by path share PUBLIC_URL's host, and so one rpId: a browser may offer
 * another instance's passkey there, and the server refuses it (credentials are looked up
 * within the instance only).
 */
export interface RelyingParty {
  id: string;
  origins: string[];
}

const onHost = (origin: string, rpId: string) => {
  const host = new URL(origin).hostname;
  return host === rpId || host.endsWith(`.${rpId}`);
};

export function relyingPartyOf(instance: Pick<InstanceContext, 'settings'>, servedUrl: string): RelyingParty {
  const own = new URL(servedUrl);
  const id = own.hostname;
  const origins = new Set([own.origin]);
  for (const o of instance.settings.allowed_origins) {
    const origin = originOf(o);
    if (origin && onHost(origin, id)) origins.add(origin);
  }
  return { id, origins: [...origins] };
}
