import { validationError, type Reason } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';

/**
 * Where a redirect flow (social, SSO) lands when it signed in completely — Clerk's
 * `action_complete_redirect_url`, resolved against the flow's `redirect_url` — while anything
 * left to do (a second factor, a transfer to sign-up) lands on `redirect_url`. It must be an
 * allowed redirect URL of the instance, as `redirect_url` must. Null when none is given.
 */
export function completeRedirectUrl(
  instance: InstanceContext,
  redirectUrl: string | null,
  completeUrl: string | undefined,
  reason: Reason,
): string | null {
  if (completeUrl === undefined) return null;
  let absolute: string | null = null;
  try {
    absolute = new URL(completeUrl, redirectUrl ?? instance.fapiUrl).href;
  } catch {
    absolute = null;
  }
  if (!absolute || !isAllowedRedirect(instance.settings, instance.fapiUrl, absolute)) {
    throw validationError(
      'action_complete_redirect_url',
      reason,
      'action_complete_redirect_url is not one of the instance’s allowed redirect URLs.',
    );
  }
  return absolute;
}
