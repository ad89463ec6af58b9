import { z } from 'zod';
import { bytesResult, endpoint } from '../../http/endpoint';
import type { FapiAuth } from './authenticate';
import { logoImage } from '../../instances/branding';

/** FAPI, public: the logo image at its version (immutable caching, ETag, 304). */
export const logoImageEndpoint = endpoint<FapiAuth>({
  summary: 'The instance’s logo image (the URL names its version: cached for a year); 304 on a matching If-None-Match',
  response: z.unknown(),
  handle: async ({ deps, auth, params, raw }) => {
    const { notModified, row, headers } = await logoImage(deps, auth.instance.id, params.version!, raw.header('if-none-match'));
    return notModified ? bytesResult(new Uint8Array(0), row.contentType, headers, 304) : bytesResult(row.bytes, row.contentType, headers);
  },
});
