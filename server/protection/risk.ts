import { and, eq, or, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { emailAddresses, knownDevices, users, type KnownDeviceKind } from '../db/schema';
import { newId } from '../db/ids';
import type { Bound } from '../db/prepared';
import { sendEmail } from '../email/mailer';
import type { InstanceContext } from '../instances/instances';
import { describeDevice, networkOf } from '../sessions/user-agent';
import { knownDevicesUpsertSql } from './statements';

/**
 * Risk-based MFA: a password sign-in from a client, network (/24 of IPv4, /48 of IPv6)
 * or — with a GeoIP lookup — country this user has not completed a sign-in from before
 * is not complete at the first factor (server/auth/sign-ins.ts asks a second factor).
 * Every completed sign-in remembers its client, network and country, whether or not the
 * rule is on, so turning it on does not make every user's first sign-in look new.
 */

export type RiskReason = 'new_device' | 'new_network' | 'new_country';

/** Where a sign-in comes from: its client (cookie or native token), IP and User-Agent. */
export interface SignInOrigin {
  clientId: string;
  ip?: string | null;
  userAgent?: string | null;
}

/** The client, network and country of a sign-in, as known_devices rows name them. */
function markersOf(deps: Pick<Deps, 'geoip'>, origin: SignInOrigin): { kind: KnownDeviceKind; value: string; reason: RiskReason }[] {
  const out: { kind: KnownDeviceKind; value: string; reason: RiskReason }[] = [
    { kind: 'client', value: origin.clientId, reason: 'new_device' },
  ];
  const network = origin.ip ? networkOf(origin.ip) : null;
  if (network) out.push({ kind: 'network', value: network, reason: 'new_network' });
  const country = origin.ip && deps.geoip ? deps.geoip(origin.ip) : null;
  if (country) out.push({ kind: 'country', value: country.toUpperCase(), reason: 'new_country' });
  return out;
}

/** Why this sign-in needs a second factor under risk-based MFA; empty when the rule is off or everything is known. */
export async function riskOf(
  deps: Pick<Deps, 'db' | 'geoip'>,
  instance: InstanceContext,
  userId: string,
  origin: SignInOrigin,
): Promise<RiskReason[]> {
  if (!instance.settings.risk_based_mfa.enabled) return [];
  const markers = markersOf(deps, origin);
  const known = await deps.db
    .select({ kind: knownDevices.kind, value: knownDevices.value })
    .from(knownDevices)
    .where(
      and(
        eq(knownDevices.userId, userId),
        or(...markers.map((m): SQL => and(eq(knownDevices.kind, m.kind), eq(knownDevices.value, m.value))!)),
      ),
    );
  return markers.filter((m) => !known.some((k) => k.kind === m.kind && k.value === m.value)).map((m) => m.reason);
}

/** Remembers where a completed sign-in (or sign-up) came from: the write, to send with others (db/together.ts). */
export function rememberOriginWrite(
  deps: Pick<Deps, 'clock' | 'geoip'>,
  instance: InstanceContext,
  userId: string,
  origin: SignInOrigin,
): Bound {
  const now = deps.clock.now();
  const markers = markersOf(deps, origin).map((m) => ({ id: newId('kdev'), kind: m.kind, value: m.value }));
  return knownDevicesUpsertSql(instance.id, userId, markers, now);
}

/** The verified address a step-up code goes to: the primary one when verified, else any verified one; null when none. */
export async function stepUpAddress(deps: Pick<Deps, 'db'>, userId: string): Promise<string | null> {
  const rows = await deps.db
    .select({ id: emailAddresses.id, email: emailAddresses.emailAddress, primary: users.primaryEmailAddressId })
    .from(emailAddresses)
    .innerJoin(users, eq(users.id, emailAddresses.userId))
    .where(and(eq(emailAddresses.userId, userId), eq(emailAddresses.verificationStatus, 'verified')));
  return (rows.find((r) => r.id === r.primary) ?? rows[0])?.email ?? null;
}

/** `j***@example.com`: enough for the user to recognise the mailbox a code went to. */
export const maskEmail = (email: string) => email.replace(/^(.)[^@]*(@.*)$/, '$1***$2');

/**
 * The new-device notice (template new_device_sign_in), written in the caller's
 * transaction; delivery follows (the mail sweep sends what a transaction wrote).
 */
export async function sendNewDeviceEmail(deps: Deps, instance: InstanceContext, userId: string, origin: SignInOrigin) {
  const [row] = await deps.db
    .select({ email: emailAddresses.emailAddress })
    .from(users)
    .innerJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(eq(users.id, userId));
  if (!row) return;
  await sendEmail(deps, {
    instanceId: instance.id,
    to: row.email,
    template: 'new_device_sign_in',
    data: { device: describeDevice(origin.userAgent), ip: origin.ip ?? 'unknown', time: new Date(deps.clock.now()).toUTCString() },
    userId,
  });
}
