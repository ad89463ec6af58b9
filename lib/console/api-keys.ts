/** Shapes of the dashboard API's end-user API key answers (server/apikeys/schemas.ts). */
export type ApiKey = {
  object: 'api_key';
  id: string;
  subject: string;
  name: string;
  description: string | null;
  scopes: string[];
  claims: Record<string, unknown> | null;
  expiration: number | null;
  created_by: string | null;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
  revoked: boolean;
  revocation_reason: string | null;
};

export type CreatedApiKey = ApiKey & { secret: string };
