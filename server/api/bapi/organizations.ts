import type { BapiAuth } from './authenticate';
import { serverOrganizationEndpointsFor } from '../../organizations/endpoints';

/** BAPI: the key's instance. */
export const bapiOrganizations = serverOrganizationEndpointsFor<BapiAuth>((auth) => auth.instance.id);
