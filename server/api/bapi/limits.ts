import type { BapiAuth } from './authenticate';
import { limitEndpointsFor } from '../../limits/endpoints';

/** BAPI: the key's instance. */
export const bapiLimits = limitEndpointsFor<BapiAuth>((auth) => auth.instance);
