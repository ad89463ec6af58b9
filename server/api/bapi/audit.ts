import type { BapiAuth } from './authenticate';
import { auditLogEndpointsFor } from '../../audit/endpoints';

export const bapiAuditLogs = auditLogEndpointsFor<BapiAuth>((auth) => auth.instance);
