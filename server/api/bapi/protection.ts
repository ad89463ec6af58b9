import type { BapiAuth } from './authenticate';
import { protectionEndpointsFor } from '../../protection/endpoints';

export const bapiProtection = protectionEndpointsFor<BapiAuth>((auth) => auth.instance);
