import { useEffect, useState } from 'react';

const taken = new Map<string, string>();

/** Reads `#ticket=…` of this page (remembered for the page's later renders). */
function readTicket(): string | null {
  if (typeof window === 'undefined') return null;
  const page = window.location.pathname;
  const ticket = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('ticket');
  if (ticket) taken.set(page, ticket);
  return taken.get(page) ?? null;
}

/**
 * The page's `#ticket=…`, removed from the address bar once the page is mounted (it is a
 * credential). The removal waits for an effect: the Next.js router writes the URL it started
 * with back into the history when it hydrates, so a removal during the first render is undone.
 * Sign-in (sign-in and actor tokens) and sign-up (waitlist invitations) use it.
 */
export function useFragmentTicket(): string | null {
  const [ticket] = useState(readTicket);
  useEffect(() => {
    if (new URLSearchParams(window.location.hash.replace(/^#/, '')).has('ticket')) {
      window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    }
  }, []);
  return ticket;
}

/** Forgets this page's ticket (once redeemed, it is not tried again). */
export function forgetFragmentTicket() {
  if (typeof window !== 'undefined') taken.delete(window.location.pathname);
}
