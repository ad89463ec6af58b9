CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"subject" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"scopes" jsonb NOT NULL,
	"claims" jsonb,
	"digest" text NOT NULL,
	"created_by" text,
	"expires_at" bigint,
	"last_used_at" bigint,
	"revoked_at" bigint,
	"revocation_reason" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_digest_uq" ON "api_keys" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "api_keys_instance_idx" ON "api_keys" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "api_keys_subject_idx" ON "api_keys" USING btree ("instance_id","subject","id");--> statement-breakpoint
-- org:admin keeps every system permission: built-in admin roles seeded before org:sys_api_keys:manage existed gain it.
UPDATE "roles" SET "permissions" = "permissions" || '["org:sys_api_keys:manage"]'::jsonb WHERE "key" = 'org:admin' AND "system" = true AND NOT ("permissions" @> '["org:sys_api_keys:manage"]'::jsonb);
