import type { BapiAuth } from './authenticate';
import { userPasskeyEndpointsFor } from '../../passkeys/endpoints';

export const bapiPasskeys = userPasskeyEndpointsFor<BapiAuth>((auth) => auth.instance);
