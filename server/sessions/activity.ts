import type { sessions } from '../db/schema';
import { parseUserAgent } from './user-agent';

type SessionRow = typeof sessions.$inferSelect;

/** Where a request comes from: the client IP (proxies trusted only per TRUST_PROXY) and its User-Agent. */
export interface ClientActivity {
  ip?: string | null;
  userAgent?: string | null;
}

export const USER_AGENT_MAX = 512;

/** The session columns recording a client's activity. */
export function activityColumns(activity: ClientActivity) {
  const userAgent = activity.userAgent ? activity.userAgent.slice(0, USER_AGENT_MAX) : null;
  const parsed = parseUserAgent(userAgent);
  return {
    ipAddress: activity.ip || null,
    userAgent,
    browserName: parsed.browserName,
    browserVersion: parsed.browserVersion,
    deviceType: userAgent ? parsed.deviceType : null,
    osName: parsed.osName,
    isMobile: userAgent ? parsed.isMobile : null,
  };
}

/** The activity columns to write when a touch comes from elsewhere, or null when nothing changed. */
export function changedActivity(row: Pick<SessionRow, 'ipAddress' | 'userAgent'>, activity: ClientActivity) {
  const next = activityColumns(activity);
  if (!next.ipAddress && !next.userAgent) return null; // nothing known: keep what was recorded
  return next.ipAddress === row.ipAddress && next.userAgent === row.userAgent ? null : next;
}

/** The `latest_activity` of the session resource; null when the session was made headless. */
export function latestActivityView(s: SessionRow) {
  if (s.ipAddress === null && s.userAgent === null) return null;
  return {
    ip_address: s.ipAddress,
    browser_name: s.browserName,
    browser_version: s.browserVersion,
    device_type: s.deviceType,
    os_name: s.osName,
    is_mobile: s.isMobile,
  };
}
