'use client';

import { requestJson } from '@/lib/api-client';
import { api, pages } from '@/lib/console/paths';
import type { ConsoleInfo } from '@/lib/console/types';

/**
 * Signs the operator out on the platform instance's FAPI (DELETE /v1/client revokes the
 * console client and clears its cookie), then goes to the console sign-in.
 */
export async function signOut(): Promise<void> {
  const { body } = await requestJson<ConsoleInfo>(api.console);
  await requestJson(`${body.fapi_url}/v1/client`, { method: 'DELETE' });
  window.location.assign(pages.signIn);
}
