CREATE TABLE "portal_links" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"intent" text NOT NULL,
	"digest" text NOT NULL,
	"return_url" text,
	"success_url" text,
	"created_by" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"session_digest" text,
	"session_expires_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sso_connection_tests" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"portal_link_id" text,
	"request_id" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"message" text,
	"result" jsonb,
	"connection_version" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"completed_at" bigint
);
--> statement-breakpoint
ALTER TABLE "portal_links" ADD CONSTRAINT "portal_links_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_connection_tests" ADD CONSTRAINT "sso_connection_tests_connection_id_sso_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."sso_connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "portal_links_digest_uq" ON "portal_links" USING btree ("digest");--> statement-breakpoint
CREATE UNIQUE INDEX "portal_links_session_digest_uq" ON "portal_links" USING btree ("session_digest");--> statement-breakpoint
CREATE INDEX "portal_links_organization_idx" ON "portal_links" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "sso_connection_tests_connection_idx" ON "sso_connection_tests" USING btree ("connection_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "sso_connection_tests_request_uq" ON "sso_connection_tests" USING btree ("request_id");--> statement-breakpoint
-- org:admin keeps every system permission: built-in admin roles seeded before org:sys_portal:manage existed gain it.
UPDATE "roles" SET "permissions" = "permissions" || '["org:sys_portal:manage"]'::jsonb WHERE "key" = 'org:admin' AND "system" = true AND NOT ("permissions" @> '["org:sys_portal:manage"]'::jsonb);
