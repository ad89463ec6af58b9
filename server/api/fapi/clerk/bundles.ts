import { z } from 'zod';
import { bytesResult, endpoint } from '../../../http/endpoint';
import { clerkBundleFile } from '../../../clerk-bundles/bundles';
import type { FapiAuth } from '../authenticate';

export const clerkBundles = {
  /** FAPI, public: Clerk's browser bundles at the paths Clerk's SDKs load them from (server/clerk-bundles). */
  get: endpoint<FapiAuth, never, never, 'file' | 'package'>({
    summary:
      'A file of Clerk’s browser bundles as installed with this server: `@clerk/clerk-js` and `@clerk/ui` (`:package` is `clerk-js@6`, `ui@1`, an exact version or `latest`; 404 when the installed version does not satisfy it), any file directly in the package’s dist/. An exact version is cached for a year, a range for 5 minutes; 304 on a matching If-None-Match',
    response: z.unknown(),
    handle: async ({ params, raw }) => {
      const file = await clerkBundleFile(params.package, params.file, raw.header('if-none-match'));
      return bytesResult(file.bytes ?? new Uint8Array(0), file.contentType, file.headers, file.bytes ? 200 : 304);
    },
  }),
};
