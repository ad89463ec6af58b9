import type { Deps } from '../../deps';
import type { AuditContext } from '../../http/actor';
import type { InstanceContext } from '../../instances/instances';
import { notFound } from '../../http/errors';
import { claimSocialSignIn } from '../../social/flow';
import { claimSsoSignIn } from '../../sso/flow';
import type { ClientRow } from '../../sessions/clients';
import { claimRefused } from '../../auth/flow-binding';
import { loadSignIn, type SignInStep } from '../../auth/sign-ins';

/**
 * `POST /v1/client/sign_ins/:id/claim`: a native app takes the sign-in its browser finished
 * at the provider or IdP (server/auth/flow-binding.ts): the claim nonce the browser was sent
 * back with, and the verifier of the code challenge the app started with. Whichever kind of
 * flow the attempt started (social or SSO), the sign-in completes on the app's own client.
 */
export async function claimSignIn(
  deps: Deps,
  instance: InstanceContext,
  client: ClientRow | null,
  signInId: string,
  proof: { claimNonce: string; codeVerifier: string },
  auditCtx: AuditContext,
): Promise<SignInStep> {
  if (!client) throw notFound('sign-in attempt');
  const social = await claimSocialSignIn(deps, instance, client.id, signInId, proof, auditCtx);
  if (social) return social.step;
  const sso = await claimSsoSignIn(deps, instance, client.id, signInId, proof, auditCtx);
  if (!sso) throw claimRefused();
  return { attempt: await loadSignIn(deps, instance, client, signInId), client, clientToken: sso.newClientToken };
}
