import type { BapiAuth } from './authenticate';
import { socialProviderEndpointsFor } from '../../social/endpoints';

/** BAPI: the key's instance. */
export const bapiSocialProviders = socialProviderEndpointsFor<BapiAuth>((auth) => auth.instance);
