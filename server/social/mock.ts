import { and, eq, gt, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { socialFlows, socialProviders } from '../db/schema';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import { escapeHtml, hiddenInputs } from '../http/auto-post-form';
import { AppError } from '../http/errors';
import { plainPage } from '../http/plain-page';
import type { InstanceContext } from '../instances/instances';
import { callbackUrl, checkMockAllowed } from './providers';
import { REASONS } from './reasons';

/**
 * The mock provider (kind `mock`) of test instances: a stand-in for Google or GitHub that
 * Latchkey serves itself, so an operator can try a social sign-in in the first minute without
 * registering an app anywhere. Its authorize page (`{fapi_url}/v1/mock_oauth/authorize`) asks
 * for a name and an email address and sends the browser to the normal callback with a one-time
 * code; the callback reads the identity back by that code (flow.ts) and ends like every social
 * sign-in. Whoever is named here signs in (the address counts as verified): test instances
 * only, at every step (creating the provider, starting, the page, the callback).
 */
type FlowRow = typeof socialFlows.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cipher'>;

/** What the page answered, kept (encrypted) on the flow until the callback presents the code. */
interface MockAnswer {
  code_digest: string;
  identity: { subject: string; email: string; emailVerified: true; firstName: string | null; lastName: string | null };
}

export const mockAuthorizeUrl = (instance: Pick<InstanceContext, 'fapiUrl'>, state: string) => {
  const url = new URL(`${instance.fapiUrl}/v1/mock_oauth/authorize`);
  url.searchParams.set('state', state);
  return url;
};

const refused = (reason: keyof typeof REASONS, message: string) =>
  new AppError('FORBIDDEN', { message, meta: { reason: REASONS[reason] } });

/** The unused, unexpired flow of an enabled mock provider that `state` names, or null. */
async function pendingFlow(deps: Pick<Deps, 'db' | 'clock'>, instance: Pick<InstanceContext, 'id'>, state: string | undefined) {
  if (!state) return null;
  const [row] = await deps.db
    .select({ flow: socialFlows })
    .from(socialFlows)
    .innerJoin(socialProviders, eq(socialProviders.id, socialFlows.providerId))
    .where(
      and(
        eq(socialFlows.instanceId, instance.id),
        eq(socialFlows.stateDigest, sha256Hex(state)),
        isNull(socialFlows.usedAt),
        gt(socialFlows.expiresAt, deps.clock.now()),
        eq(socialProviders.kind, 'mock'),
        eq(socialProviders.enabled, true),
      ),
    );
  return row?.flow ?? null;
}

/** In English only: a tool for an operator trying a test instance. */
const layout = (title: string, body: string) => plainPage('en', title, body);

const TITLE = 'Mock provider';
const NO_STORE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

function formPage(
  instance: Pick<InstanceContext, 'fapiUrl'>,
  state: string,
  values: { email?: string; first_name?: string; last_name?: string },
  message?: string,
) {
  const field = (name: keyof typeof values, label: string, extra: string) =>
    `<label>${escapeHtml(label)}<input name="${name}" value="${escapeHtml(values[name] ?? '')}" ${extra}></label>`;
  return layout(
    TITLE,
    `<p><small>A stand-in for a social provider on this test instance: whoever you name here signs in, with the address counted as verified. Production instances cannot use it.</small></p>` +
      (message ? `<p role="alert">${escapeHtml(message)}</p>` : '') +
      `<form method="post" action="${escapeHtml(`${instance.fapiUrl}/v1/mock_oauth/authorize`)}">${hiddenInputs({ state })}` +
      field('email', 'Email address', 'type="email" autocomplete="email" maxlength="256" required autofocus') +
      field('first_name', 'First name', 'autocomplete="given-name" maxlength="256"') +
      field('last_name', 'Last name', 'autocomplete="family-name" maxlength="256"') +
      `<div class="actions"><button type="submit" name="decision" value="deny" formnovalidate>Cancel</button>` +
      `<button type="submit" name="decision" value="allow">Continue</button></div></form>`,
  );
}

const goneMessage = 'This sign-in link is unknown, expired or already used; start the sign-in again.';

/** `GET {fapi_url}/v1/mock_oauth/authorize?state=…`: the page, for a flow still waiting for it. */
export async function mockAuthorizePage(deps: D, instance: InstanceContext, state: string | undefined) {
  checkMockAllowed(instance);
  const flow = await pendingFlow(deps, instance, state);
  if (!flow) return { html: layout(TITLE, `<p role="alert">${escapeHtml(goneMessage)}</p>`), status: 400, headers: NO_STORE };
  return { html: formPage(instance, state!, {}), status: 200, headers: NO_STORE };
}

export const mockConsentBody = z.object({
  state: z.string().max(512),
  decision: z.enum(['allow', 'deny']),
  email: z.string().trim().max(256).optional(),
  first_name: z.string().trim().max(256).optional(),
  last_name: z.string().trim().max(256).optional(),
});

const email = z.email();

/**
 * The page's answer: Cancel sends `error=access_denied` to the callback; Continue keeps the
 * identity on the flow under a one-time code's digest and sends the code to the callback.
 */
export async function mockConsent(deps: D, instance: InstanceContext, input: z.output<typeof mockConsentBody>) {
  checkMockAllowed(instance);
  const flow = await pendingFlow(deps, instance, input.state);
  if (!flow)
    return { kind: 'page' as const, html: layout(TITLE, `<p role="alert">${escapeHtml(goneMessage)}</p>`), status: 400, headers: NO_STORE };
  const back = new URL(callbackUrl(instance));
  back.searchParams.set('state', input.state);
  if (input.decision === 'deny') {
    back.searchParams.set('error', 'access_denied');
    return { kind: 'redirect' as const, url: back.href };
  }
  const address = input.email ?? '';
  if (!email.safeParse(address).success) {
    return {
      kind: 'page' as const,
      html: formPage(instance, input.state, input, 'Enter a valid email address.'),
      status: 400,
      headers: NO_STORE,
    };
  }
  const code = generateSecret('mockc_');
  const answer: MockAnswer = {
    code_digest: sha256Hex(code),
    identity: {
      subject: `mock|${address.toLowerCase()}`,
      email: address,
      emailVerified: true,
      firstName: input.first_name || null,
      lastName: input.last_name || null,
    },
  };
  await deps.db
    .update(socialFlows)
    .set({ identityEncrypted: deps.cipher.encrypt(JSON.stringify(answer)) })
    .where(eq(socialFlows.id, flow.id));
  back.searchParams.set('code', code);
  return { kind: 'redirect' as const, url: back.href };
}

/** The callback's "token exchange" for the mock provider: the identity the page kept, for the code it issued. */
export function mockIdentity(deps: Pick<Deps, 'cipher'>, flow: FlowRow, code: string | null): MockAnswer['identity'] {
  const kept = flow.identityEncrypted ? (JSON.parse(deps.cipher.decrypt(flow.identityEncrypted)) as Partial<MockAnswer>) : null;
  if (!code || !kept?.code_digest || !kept.identity || !constantTimeEqual(sha256Hex(code), kept.code_digest))
    throw refused('token_invalid', 'The mock provider’s code is missing or does not match this sign-in.');
  return kept.identity;
}
