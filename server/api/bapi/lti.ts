import type { BapiAuth } from './authenticate';
import { ltiPlatformsFor } from '../../lti/endpoints';

export const bapiLtiPlatforms = ltiPlatformsFor<BapiAuth>((auth) => auth.instance);
