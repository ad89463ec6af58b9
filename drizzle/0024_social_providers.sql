CREATE TABLE "external_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text NOT NULL,
	"provider" text NOT NULL,
	"provider_user_id" text NOT NULL,
	"email" text,
	"email_verified" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "social_flows" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"client_id" text NOT NULL,
	"provider_id" text NOT NULL,
	"sign_in_id" text NOT NULL,
	"purpose" text NOT NULL,
	"state_digest" text NOT NULL,
	"nonce" text NOT NULL,
	"code_verifier_encrypted" text NOT NULL,
	"redirect_url" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "social_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"display_name" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_encrypted" text NOT NULL,
	"issuer" text,
	"endpoints" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"scopes" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "external_accounts" ADD CONSTRAINT "external_accounts_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_accounts" ADD CONSTRAINT "external_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_flows" ADD CONSTRAINT "social_flows_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_providers" ADD CONSTRAINT "social_providers_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "external_accounts_uq" ON "external_accounts" USING btree ("instance_id","provider","provider_user_id");--> statement-breakpoint
CREATE INDEX "external_accounts_user_idx" ON "external_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "social_flows_state_uq" ON "social_flows" USING btree ("state_digest");--> statement-breakpoint
CREATE UNIQUE INDEX "social_providers_name_uq" ON "social_providers" USING btree ("instance_id","name");