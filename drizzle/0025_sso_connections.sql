CREATE TABLE "sso_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"user_id" text NOT NULL,
	"subject" text NOT NULL,
	"email_address" text NOT NULL,
	"attributes" jsonb NOT NULL,
	"last_sign_in_at" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_assertion_ids" (
	"connection_id" text NOT NULL,
	"assertion_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"provider" text NOT NULL,
	"domains" jsonb NOT NULL,
	"active" boolean NOT NULL,
	"attribute_mapping" jsonb NOT NULL,
	"role_mapping" jsonb NOT NULL,
	"default_role" text,
	"idp_entity_id" text,
	"idp_sso_url" text,
	"idp_certificates" jsonb NOT NULL,
	"idp_metadata_url" text,
	"allow_idp_initiated" boolean NOT NULL,
	"oidc_issuer" text,
	"oidc_client_id" text,
	"oidc_client_secret_encrypted" text,
	"oidc_scopes" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"handle" text NOT NULL,
	"sign_in_attempt_id" text,
	"client_id" text,
	"redirect_url" text,
	"code_verifier" text,
	"nonce" text,
	"expires_at" bigint NOT NULL,
	"consumed_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sso_accounts" ADD CONSTRAINT "sso_accounts_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_accounts" ADD CONSTRAINT "sso_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_assertion_ids" ADD CONSTRAINT "sso_assertion_ids_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_requests" ADD CONSTRAINT "sso_requests_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "sso_accounts_subject_uq" ON "sso_accounts" USING btree ("connection_id","subject");--> statement-breakpoint
CREATE INDEX "sso_accounts_user_idx" ON "sso_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sso_assertion_ids_uq" ON "sso_assertion_ids" USING btree ("connection_id","assertion_id");--> statement-breakpoint
CREATE INDEX "sso_connections_instance_idx" ON "sso_connections" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "sso_connections_org_idx" ON "sso_connections" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sso_requests_handle_uq" ON "sso_requests" USING btree ("connection_id","handle");