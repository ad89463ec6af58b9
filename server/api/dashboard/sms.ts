import { routeInstance, type ConsoleAuth } from './authenticate';
import { smsEndpointsFor } from '../../sms/endpoints';

export const dashboardSms = smsEndpointsFor<ConsoleAuth>(routeInstance);
