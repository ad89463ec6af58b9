'use client';

import { writeFlow } from '@/lib/fapi/flow';
import type { SignInAnswer } from '@/lib/fapi/types';
import { ApiError } from '@/lib/api-client';
import { useHosted } from './hosted-context';

/**
 * Enterprise SSO: an email whose domain has an active connection goes to its identity provider
 * (which signs the person in, or up by just-in-time provisioning). Resolves false when no
 * connection serves the domain, so the form goes on as usual.
 */
export function useIdentityProvider() {
  const { instanceId, call, href } = useHosted();
  return async function toIdentityProvider(identifier: string): Promise<boolean> {
    const email = identifier.trim();
    if (!email.includes('@')) return false;
    try {
      // Back to these pages first, as after a social sign-in: a second factor is asked there, then on to redirect_url.
      const back = new URL(href('/sign-in/sso-callback'), window.location.href).href;
      const res = await call<SignInAnswer>('/v1/client/sign_ins', {
        json: { strategy: 'enterprise_sso', identifier: email, redirect_url: back },
      });
      const url = (res.response.first_factor_verification as { external_verification_redirect_url?: string } | null)
        ?.external_verification_redirect_url;
      if (!url) return false;
      writeFlow(instanceId, 'sign_in', { id: res.response.id, identifier: email });
      window.location.assign(url);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.meta.reason === 'no_connection') return false;
      throw err;
    }
  };
}

/** A refusal that means "this address signs in through its IdP" (403 `sso_required`). */
export const isSsoRequired = (err: unknown) => err instanceof ApiError && err.meta.reason === 'sso_required';
