/** The dashboard API's end-user API keys (types generated from server/apikeys/schemas.ts). */
import type { InstanceResponse } from './types';

export type { ApiKey } from '@/lib/generated/dashboard';
export type CreatedApiKey = InstanceResponse<'POST /api_keys'>;
