ALTER TABLE "sso_connections" ADD COLUMN "sign_authn_requests" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "sp_signing_key_encrypted" text;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "sp_signing_certificate" text;