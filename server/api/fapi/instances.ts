import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { storedImageResult } from '../../http/images';
import type { FapiAuth } from './authenticate';
import { logoImage } from '../../instances/branding';

export const brandingLogo = {
  /** FAPI, public: the logo image at its version (immutable caching, ETag, 304). */
  get: endpoint<FapiAuth, never, never, 'version'>({
    summary: 'The instance’s logo image (the URL names its version: cached for a year); 304 on a matching If-None-Match',
    response: z.unknown(),
    handle: async ({ deps, auth, params, raw }) => {
      return storedImageResult(await logoImage(deps, auth.instance.id, params.version, raw.header('if-none-match')));
    },
  }),
};
