import type { BapiAuth } from './authenticate';
import { oauthApplicationsFor } from '../../oauth/endpoints';

export const bapiOauthApplications = oauthApplicationsFor<BapiAuth>((auth) => auth.instance);
