ALTER TABLE "social_flows" ADD COLUMN "binding_digest" text;--> statement-breakpoint
ALTER TABLE "social_flows" ADD COLUMN "code_challenge" text;--> statement-breakpoint
ALTER TABLE "social_flows" ADD COLUMN "claim_digest" text;--> statement-breakpoint
ALTER TABLE "social_flows" ADD COLUMN "identity_encrypted" text;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD COLUMN "binding_digest" text;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD COLUMN "code_challenge" text;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD COLUMN "claim_digest" text;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD COLUMN "identity_encrypted" text;