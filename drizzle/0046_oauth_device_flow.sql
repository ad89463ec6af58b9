CREATE TABLE "oauth_device_codes" (
	"digest" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"application_id" text NOT NULL,
	"user_code_digest" text NOT NULL,
	"scope" text NOT NULL,
	"status" text NOT NULL,
	"interval" integer NOT NULL,
	"last_polled_at" bigint,
	"user_id" text,
	"auth_time" bigint,
	"context" jsonb,
	"authorization_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_applications" ADD COLUMN "device_flow_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_device_codes" ADD CONSTRAINT "oauth_device_codes_application_id_oauth_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."oauth_applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_device_codes" ADD CONSTRAINT "oauth_device_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_device_codes_user_code_uq" ON "oauth_device_codes" USING btree ("instance_id","user_code_digest");