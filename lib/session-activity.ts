import type { SessionActivity } from '@/lib/generated/fapi';

/** The `latest_activity` of a session resource: where its client was when it signed in or last switched to it. */
export type { SessionActivity };

/**
 * The parts naming a device ("Chrome 131", "macOS"), or null when neither the browser
 * nor the OS is known. Browser and OS names are product names: not translated.
 */
export function deviceParts(activity: SessionActivity | null | undefined, opts: { version?: boolean } = {}) {
  if (!activity || (!activity.browser_name && !activity.os_name)) return null;
  const browser =
    activity.browser_name && opts.version && activity.browser_version
      ? `${activity.browser_name} ${activity.browser_version}`
      : activity.browser_name;
  return { browser, os: activity.os_name };
}
