import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { InstanceContext } from '../instances/instances';
import type { ClientRow } from '../sessions/clients';
import { consumeTicket, ticketInvalid, ticketRedeemedAction } from '../sessions/tickets';
import { isAppError } from '../http/errors';
import type { SessionActor } from '../sessions/sessions';
import { completeSignIn, type SignInEnd } from './complete-sign-in';

/**
 * Redeems a ticket on FAPI (strategy `ticket`), all in one transaction: the ticket is
 * consumed, and the sign-in ends as every sign-in does (complete-sign-in.ts). A sign-in token
 * stands for the first factor (a second factor is still asked, `mfa_required` applies); an
 * actor token starts an impersonation session (never asks the user's factors; what it may do
 * is limited). A refusal leaves the ticket pending.
 */
export async function signInWithTicket(
  deps: Deps,
  instance: InstanceContext,
  input: { ticket: string; client: ClientRow | null },
  request: { ip?: string | null; userAgent?: string | null },
): Promise<SignInEnd & { actor: SessionActor | null }> {
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const ticket = await consumeTicket(d, instance, input.ticket);
    const auditCtx = { actor: `ticket:${ticket.id}`, ip: request.ip ?? null, userAgent: request.userAgent ?? null };
    const end = await completeSignIn(d, instance, {
      way: ticket.kind === 'actor_token' ? 'impersonation' : 'ticket',
      userId: ticket.userId,
      client: input.client,
      presentedClient: input.client !== null,
      actor: ticket.actor,
      auditCtx,
    }).catch((err: unknown) => {
      if (isAppError(err) && err.code === 'CREDENTIALS_INVALID')
        throw ticketInvalid('invalid', 'The user of this ticket no longer exists.');
      throw err;
    });
    await audit(d, {
      instanceId: instance.id,
      ...auditCtx,
      action: ticketRedeemedAction(ticket.kind),
      target: ticket.id,
      details: {
        user_id: ticket.userId,
        session_id: end.sessionId,
        client_id: end.client.id,
        ...(ticket.actor ? { actor: ticket.actor } : {}),
      },
    });
    return { ...end, actor: ticket.actor };
  });
}
