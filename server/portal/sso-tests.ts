import { DOMParser } from '@xmldom/xmldom';
import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Deps } from '../deps';
import { newId } from '../db/ids';
import { ssoConnectionTests, ssoRequests } from '../db/schema';
import type { FlowBinding } from '../auth/flow-binding';
import { AppError, isAppError, notFound } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { ensureBuiltIns } from '../organizations/roles';
import { emailDomain } from '../organizations/domains';
import { loadConnection, updateConnection, type ConnectionRow } from '../sso/connections';
import { acceptedEmail, roleFor, startSso, type SsoIdentity } from '../sso/flow';
import { SsoRefused } from '../sso/saml';
import { REASONS } from './reasons';

/**
 * "Test connection" (issue 49): a real round trip through the connection's IdP, started from
 * the portal in a new tab. The IdP's answer goes through the same checks as a sign-in
 * (signature, issuer, audience, destination, recipient, validity, InResponseTo or state) and
 * the same email rules, but signs no one in: what the IdP sent and how it would map are kept
 * on the test, or the exact reason it was refused. A connection is activated from the portal
 * only after a successful test of its current settings.
 */
type TestRow = typeof ssoConnectionTests.$inferSelect;

const testResultPath = (connectionId: string, testId: string) =>
  `/portal/sso/test?connection=${encodeURIComponent(connectionId)}&id=${encodeURIComponent(testId)}`;

function testView(t: TestRow) {
  return {
    object: 'sso_connection_test' as const,
    id: t.id,
    connection_id: t.connectionId,
    status: t.status,
    reason: t.reason,
    message: t.message,
    result: t.result as TestResult | null,
    created_at: t.createdAt,
    completed_at: t.completedAt,
  };
}

type TestResult = {
  /** SAML NameID or OIDC `sub`. */
  subject: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  groups: string[];
  mapping: { email_domain: string | null; domain_allowed: boolean; role: string | null; mapped_groups: string[] };
  /** For a refusal: a finer cause (`unsigned`, `certificate_mismatch`, `clock_skew`). */
  detail?: string;
};

/** Starts a test: an SSO request bound to this browser (its flow cookie), and the test waiting for its answer. */
export async function startConnectionTest(
  deps: Deps,
  instance: InstanceContext,
  organizationId: string,
  connectionId: string,
  portalLinkId: string,
  binding: FlowBinding,
) {
  const c = await loadConnection(deps, instance.id, connectionId, organizationId);
  let started: { url: string; requestId: string };
  try {
    started = await startSso(deps, instance, c, { signInAttemptId: null, clientId: null, redirectUrl: null, binding });
  } catch (err) {
    if (err instanceof SsoRefused) {
      // The settings fail before the IdP is reached (an OIDC issuer whose discovery fails): a failed test with its exact reason,
      // and no tab to open. No request is in flight: the test's own id stands in for it.
      const now = deps.clock.now();
      const id = newId('ssot');
      const [row] = await deps.db
        .insert(ssoConnectionTests)
        .values({
          id,
          instanceId: instance.id,
          connectionId: c.id,
          portalLinkId,
          requestId: id,
          status: 'failed',
          reason: err.reason,
          message: err.message.slice(0, 1000),
          result: null,
          connectionVersion: c.updatedAt,
          createdAt: now,
          completedAt: now,
        })
        .returning();
      return testView(row!);
    }
    if (err instanceof Error && !isAppError(err)) {
      throw new AppError('CONFLICT', {
        message: `The identity provider could not be reached: ${err.message}`,
        meta: { reason: REASONS.test_pending },
      });
    }
    throw err;
  }
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(ssoConnectionTests)
    .values({
      id: newId('ssot'),
      instanceId: instance.id,
      connectionId: c.id,
      portalLinkId,
      requestId: started.requestId,
      status: 'pending',
      reason: null,
      message: null,
      result: null,
      connectionVersion: c.updatedAt,
      createdAt: now,
      completedAt: null,
    })
    .returning();
  return { ...testView(row!), url: started.url, request_id: started.requestId };
}

export async function getConnectionTest(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  organizationId: string,
  connectionId: string,
  testId: string,
) {
  await loadConnection(deps, instanceId, connectionId, organizationId);
  const [row] = await deps.db
    .select()
    .from(ssoConnectionTests)
    .where(
      and(
        eq(ssoConnectionTests.id, testId),
        eq(ssoConnectionTests.connectionId, connectionId),
        eq(ssoConnectionTests.instanceId, instanceId),
      ),
    );
  if (!row) throw notFound('connection test');
  return testView(row);
}

/** The test waiting on an SSO request, if that request is a test's. */
export async function pendingTestOf(deps: Pick<Deps, 'db'>, requestId: string): Promise<TestRow | null> {
  const [row] = await deps.db
    .select()
    .from(ssoConnectionTests)
    .where(and(eq(ssoConnectionTests.requestId, requestId), eq(ssoConnectionTests.status, 'pending')));
  return row ?? null;
}

/** InResponseTo as the response claims it, before any check: only to find which test a refusal answers. */
export function claimedInResponseTo(samlResponse: string): string | null {
  try {
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
    if (/<!DOCTYPE/i.test(xml)) return null;
    return (
      new DOMParser({ errorHandler: () => undefined }).parseFromString(xml, 'text/xml').documentElement?.getAttribute('InResponseTo') ||
      null
    );
  } catch {
    return null;
  }
}

/** A finer cause of a refusal the admin can act on. */
function detailOf(err: SsoRefused, samlResponse?: string): string | undefined {
  if (err.reason === 'expired') return 'clock_skew';
  if (err.reason === 'invalid_signature' && samlResponse !== undefined) {
    const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
    return /<([A-Za-z0-9_-]+:)?Signature[\s>]/.test(xml) ? 'certificate_mismatch' : 'unsigned';
  }
  return undefined;
}

/**
 * Runs a test's answer: `identify` verifies it (throwing SsoRefused) and reads the identity;
 * the request is consumed and the outcome kept on the test. Nobody is signed in.
 */
export async function completeConnectionTest(
  deps: Deps,
  instance: InstanceContext,
  test: TestRow,
  identify: (c: ConnectionRow) => Promise<SsoIdentity>,
  samlResponse?: string,
): Promise<string> {
  const c = await loadConnection(deps, instance.id, test.connectionId);
  const now = deps.clock.now();
  let outcome: Partial<TestRow>;
  try {
    const identity = await identify(c);
    const email = identity.email?.trim().toLowerCase() ?? null;
    await ensureBuiltIns(deps, instance.id);
    const role = await roleFor(deps.db, instance.id, c, identity.groups, instance.settings.organization_default_role);
    const result: TestResult = {
      subject: identity.subject,
      email,
      first_name: identity.firstName,
      last_name: identity.lastName,
      groups: identity.groups,
      mapping: {
        email_domain: email?.includes('@') ? emailDomain(email) : null,
        domain_allowed: email ? c.domains.includes(emailDomain(email)) : false,
        role,
        mapped_groups: identity.groups.filter((g) => c.roleMapping[g]),
      },
    };
    try {
      acceptedEmail(c, identity);
      outcome = { status: 'succeeded', result };
    } catch (err) {
      if (!(err instanceof SsoRefused)) throw err;
      outcome = { status: 'failed', reason: err.reason, message: err.message, result };
    }
  } catch (err) {
    if (!(err instanceof SsoRefused)) throw err;
    const detail = detailOf(err, samlResponse);
    outcome = { status: 'failed', reason: err.reason, message: err.message.slice(0, 1000), result: detail ? { detail } : null };
  }
  await deps.db.transaction(async (tx) => {
    await tx
      .update(ssoRequests)
      .set({ consumedAt: now })
      .where(and(eq(ssoRequests.id, test.requestId), isNull(ssoRequests.consumedAt)));
    await tx
      .update(ssoConnectionTests)
      .set({ ...outcome, completedAt: now })
      .where(eq(ssoConnectionTests.id, test.id));
  });
  return `${instance.fapiUrl}${testResultPath(test.connectionId, test.id)}`;
}

/**
 * Activates a connection from the portal: its latest test must have succeeded with the
 * settings it has now (409 test_required otherwise). ssoConnection.updated.
 */
export async function activateTestedConnection(deps: Deps, instanceId: string, organizationId: string, connectionId: string) {
  const c = await loadConnection(deps, instanceId, connectionId, organizationId);
  const [latest] = await deps.db
    .select()
    .from(ssoConnectionTests)
    .where(eq(ssoConnectionTests.connectionId, c.id))
    .orderBy(desc(ssoConnectionTests.id))
    .limit(1);
  if (!latest || latest.status !== 'succeeded' || latest.connectionVersion !== c.updatedAt) {
    throw new AppError('CONFLICT', {
      message: 'Run Test connection successfully with the connection’s current settings before activating it.',
      meta: { reason: REASONS.test_required },
    });
  }
  return updateConnection(deps, instanceId, c.id, { active: true }, organizationId);
}
