CREATE TABLE "oauth_initial_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"name" text NOT NULL,
	"digest" text NOT NULL,
	"expires_at" bigint,
	"revoked_at" bigint,
	"last_used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_logout_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"application_id" text NOT NULL,
	"session_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"locked_until" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "backchannel_logout_uri" text;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "backchannel_logout_session_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "registration_token_digest" text;--> statement-breakpoint
ALTER TABLE "oauth_initial_access_tokens" ADD CONSTRAINT "oauth_initial_access_tokens_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_logout_deliveries" ADD CONSTRAINT "oauth_logout_deliveries_application_id_oauth_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."oauth_applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_initial_access_tokens_digest_uq" ON "oauth_initial_access_tokens" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "oauth_initial_access_tokens_instance_idx" ON "oauth_initial_access_tokens" USING btree ("instance_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_logout_deliveries_app_session_uq" ON "oauth_logout_deliveries" USING btree ("application_id","session_id");--> statement-breakpoint
CREATE INDEX "oauth_logout_deliveries_due_idx" ON "oauth_logout_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "oauth_authorizations_sid_idx" ON "oauth_authorizations" USING btree (("context"->>'sid'));