import { audit } from '../audit/audit';
import type { RouterGuards } from '../http/router';
import { enforceNetworkAcl } from '../limits/guard';

/** The network ACL and the audit log the router applies on every surface, from the domains that own them. */
export const ROUTER_GUARDS: RouterGuards = { networkAcl: enforceNetworkAcl, audit };
