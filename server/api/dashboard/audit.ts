import { routeInstance, type ConsoleAuth } from './authenticate';
import { auditLogEndpointsFor } from '../../audit/endpoints';

export const dashboardAuditLogs = auditLogEndpointsFor<ConsoleAuth>(routeInstance);
