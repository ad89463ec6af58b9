CREATE TABLE "scim_directory_errors" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"errors_count" integer DEFAULT 0 NOT NULL,
	"last_error_at" bigint NOT NULL,
	"last_method" text NOT NULL,
	"last_path" text NOT NULL,
	"last_status" integer NOT NULL,
	"last_scim_type" text,
	"last_detail" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_domains" ADD COLUMN "last_checked_at" bigint;--> statement-breakpoint
ALTER TABLE "organization_domains" ADD COLUMN "verification_error" text;--> statement-breakpoint
ALTER TABLE "scim_directory_errors" ADD CONSTRAINT "scim_directory_errors_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;