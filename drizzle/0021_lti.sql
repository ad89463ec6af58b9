CREATE TABLE "lti_context_organizations" (
	"instance_id" text NOT NULL,
	"issuer" text NOT NULL,
	"context_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "lti_context_organizations_instance_id_issuer_context_id_pk" PRIMARY KEY("instance_id","issuer","context_id")
);
--> statement-breakpoint
CREATE TABLE "lti_identities" (
	"instance_id" text NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" text NOT NULL,
	"platform_id" text,
	"picture" text,
	"roles" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lti_launch_states" (
	"state_digest" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"platform_id" text NOT NULL,
	"nonce" text NOT NULL,
	"target_link_uri" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lti_platforms" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"name" text NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"authorization_endpoint" text NOT NULL,
	"jwks_uri" text NOT NULL,
	"deployment_ids" jsonb NOT NULL,
	"target_link_uris" jsonb NOT NULL,
	"organizations_from_contexts" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "lti" jsonb;--> statement-breakpoint
ALTER TABLE "lti_context_organizations" ADD CONSTRAINT "lti_context_organizations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lti_identities" ADD CONSTRAINT "lti_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lti_launch_states" ADD CONSTRAINT "lti_launch_states_platform_id_lti_platforms_id_fk" FOREIGN KEY ("platform_id") REFERENCES "public"."lti_platforms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lti_platforms" ADD CONSTRAINT "lti_platforms_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lti_context_organizations_org_idx" ON "lti_context_organizations" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lti_identities_uq" ON "lti_identities" USING btree ("instance_id","issuer","subject");--> statement-breakpoint
CREATE INDEX "lti_identities_user_idx" ON "lti_identities" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "lti_launch_states_expiry_idx" ON "lti_launch_states" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "lti_platforms_issuer_client_uq" ON "lti_platforms" USING btree ("instance_id","issuer","client_id");--> statement-breakpoint
CREATE INDEX "lti_platforms_instance_idx" ON "lti_platforms" USING btree ("instance_id","id");