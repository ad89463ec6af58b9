/**
 * The dashboard API's answers as the console names them: each an alias of a type generated
 * from the API's schemas (lib/generated/dashboard.ts, `npm run ui:generate`), never a copy.
 */
import type { DashboardItem, DashboardOperations, DashboardResponse } from '@/lib/generated/dashboard';

export type { Email, EmailAddress, Person, Session, Sms, User } from '@/lib/generated/dashboard';

/** The path of the instance-scoped operations, which InstanceResponse and InstanceItem leave out. */
type InstancePath = '/accounts/{accountId}/instances/{instanceId}';
/** An instance-scoped operation by method and the path under the instance: `'GET /users'`. */
type InstanceOperation = keyof DashboardOperations extends infer K
  ? K extends `${infer M} ${InstancePath}${infer P}`
    ? `${M} ${P}`
    : never
  : never;
type Full<K extends InstanceOperation> = K extends `${infer M} ${infer P}` ? `${M} ${InstancePath}${P}` & keyof DashboardOperations : never;

/** The answer of an instance-scoped operation: `InstanceResponse<'GET /users'>`. */
export type InstanceResponse<K extends InstanceOperation> = DashboardResponse<Full<K>>;
/** The item of an instance-scoped list answer: `InstanceItem<'GET /users'>`. */
export type InstanceItem<K extends InstanceOperation> = DashboardItem<Full<K>>;

export type ConsoleInfo = DashboardResponse<'GET /console'>;
export type Me = DashboardResponse<'GET /me'>;
export type Account = DashboardResponse<'GET /accounts/{accountId}'>;
export type Role = Account['role'];
export type Member = DashboardItem<'GET /accounts/{accountId}/members'>;
export type Invitation = DashboardItem<'GET /accounts/{accountId}/invitations'>;

export type Instance = DashboardResponse<'GET /accounts/{accountId}/instances/{instanceId}'>;
export type Settings = Instance['settings'];
export type PasswordPolicy = Settings['password_policy'];
export type SignInMethods = Settings['sign_in_methods'];

export type SecretKey = InstanceItem<'GET /keys'>;
export type CreatedKey = InstanceResponse<'POST /keys'>;
export type ActorToken = InstanceResponse<'POST /users/{id}/impersonate'>;
export type SmsSettings = InstanceResponse<'GET /sms_settings'>;
