// Generated: edit sdk/scripts/generate-types.ts instead.
// The Dashboard types of sdk/backend/src/generated/dashboard.ts, with the UI's helpers. Regenerate after an API change: npm run ui:generate

export type * from '../../sdk/backend/src/generated/dashboard';
import type { DashboardOperations } from '../../sdk/backend/src/generated/dashboard';

export type DashboardResponse<K extends keyof DashboardOperations> = DashboardOperations[K]['response'];
export type DashboardBody<K extends keyof DashboardOperations> = DashboardOperations[K]['body'];
/** The item type of a list answer (`{ data: T[] }`). */
export type DashboardItem<K extends keyof DashboardOperations> = DashboardOperations[K]['response'] extends { data: Array<infer T> } ? T : never;
