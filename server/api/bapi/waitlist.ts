import type { BapiAuth } from './authenticate';
import { waitlistEndpointsFor } from '../../waitlist/endpoints';

/** BAPI: the key's instance. */
export const bapiWaitlist = waitlistEndpointsFor<BapiAuth>((auth) => auth.instance);
