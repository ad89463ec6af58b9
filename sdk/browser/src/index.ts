export { Latchkey, createLatchkey, fapiUrlFromPublishableKey, LatchkeyFapiError } from './core.js';
export type { LatchkeyOptions, TokenStorage, SessionState, LockManagerLike, ChannelLike, Client, ClientSession } from './core.js';
export type * as Fapi from './generated/fapi.js';
