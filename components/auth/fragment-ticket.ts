const taken = new Map<string, string>();

/**
 * Reads `#ticket=…` and removes it from the address bar at once (it is a credential); the
 * page keeps it for its later renders. Sign-in (sign-in and actor tokens) and sign-up
 * (waitlist invitations) use it.
 */
export function takeTicketFromFragment(): string | null {
  if (typeof window === 'undefined') return null;
  const page = window.location.pathname;
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const ticket = params.get('ticket');
  if (ticket) {
    taken.set(page, ticket);
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  }
  return taken.get(page) ?? null;
}

/** Forgets this page's ticket (once redeemed, it is not tried again). */
export function forgetFragmentTicket() {
  if (typeof window !== 'undefined') taken.delete(window.location.pathname);
}
