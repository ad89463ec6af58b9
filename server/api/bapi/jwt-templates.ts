import type { BapiAuth } from './authenticate';
import { jwtTemplateEndpointsFor } from '../../sessions/jwt-template-endpoints';

export const bapiJwtTemplates = jwtTemplateEndpointsFor<BapiAuth>((auth) => auth.instance);
