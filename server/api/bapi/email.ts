import type { BapiAuth } from './authenticate';
import { messageEndpointsFor } from '../../email/endpoints';

export const bapiMessages = messageEndpointsFor<BapiAuth>((auth) => auth.instance);
