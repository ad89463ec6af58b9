import type { BapiAuth } from './authenticate';
import { userEndpointsFor } from '../../users/endpoints';
import { profileImageEndpointsFor } from '../../users/endpoints';

export const bapiUsers = userEndpointsFor<BapiAuth>((auth) => auth.instance);

export const bapiProfileImage = profileImageEndpointsFor<BapiAuth>((auth) => auth.instance);
