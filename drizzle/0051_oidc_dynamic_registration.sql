ALTER TABLE "oauth_applications" ADD COLUMN "registration_metadata" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_initial_access_tokens" ADD COLUMN "max_uses" integer;--> statement-breakpoint
ALTER TABLE "oauth_initial_access_tokens" ADD COLUMN "use_count" integer DEFAULT 0 NOT NULL;