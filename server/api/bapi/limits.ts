import type { BapiAuth } from './authenticate';
import { protectionEndpointsFor } from '../../limits/endpoints';

/** BAPI: the key's instance. */
export const bapiProtection = protectionEndpointsFor<BapiAuth>((auth) => auth.instance);
