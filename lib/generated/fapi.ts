// Generated: edit sdk/scripts/generate-types.ts instead.
// The Fapi types of sdk/browser/src/generated/fapi.ts, with the UI's helpers. Regenerate after an API change: npm run ui:generate

export type * from '../../sdk/browser/src/generated/fapi';
import type { FapiOperations } from '../../sdk/browser/src/generated/fapi';

export type FapiResponse<K extends keyof FapiOperations> = FapiOperations[K]['response'];
export type FapiBody<K extends keyof FapiOperations> = FapiOperations[K]['body'];
/** The item type of a list answer (`{ data: T[] }`). */
export type FapiItem<K extends keyof FapiOperations> = FapiOperations[K]['response'] extends { data: Array<infer T> } ? T : never;
