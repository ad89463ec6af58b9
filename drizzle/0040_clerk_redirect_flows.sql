ALTER TABLE "social_flows" ADD COLUMN "complete_redirect_url" text;--> statement-breakpoint
ALTER TABLE "social_flows" ADD COLUMN "new_user" text DEFAULT 'create' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD COLUMN "complete_redirect_url" text;