import type { BapiAuth } from './authenticate';
import { userEndpointsFor } from '../../users/endpoints';
import { profileImageEndpointsFor } from '../../users/endpoints';


export const bapiUsers = userEndpointsFor<BapiAuth>((auth) => auth.instance);
/** The FAPI's route-types test mounts this BAPI endpoint where it must not compile. */
export const getUserEndpoint = bapiUsers.get;

export const bapiProfileImage = profileImageEndpointsFor<BapiAuth>((auth) => auth.instance);
