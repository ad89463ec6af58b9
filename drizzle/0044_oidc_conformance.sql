ALTER TABLE "sessions" ADD COLUMN "sign_in_way" text;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "jwks_uri" text;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "jwks" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_authorizations" ADD COLUMN "context" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "context" jsonb;