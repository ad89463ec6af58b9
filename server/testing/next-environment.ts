import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Next's server modules read AsyncLocalStorage from globalThis, which Next's own node environment
 * sets before it loads them. A test worker runs file after file in one module cache (vitest.config.ts,
 * `isolate: false`), so one of those modules reached through a component or route import threw
 * "AsyncLocalStorage accessed in runtime where it is not available" in whichever file loaded it
 * first (seen once, in server/sso/saml-post-browser.test.ts). Every test file starts as Next would.
 */
(globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage ??= AsyncLocalStorage;
