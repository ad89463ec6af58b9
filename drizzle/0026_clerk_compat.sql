CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"email_address" text NOT NULL,
	"email_key" text NOT NULL,
	"status" text NOT NULL,
	"redirect_url" text,
	"public_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"expires_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "svix_headers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invitations_instance_idx" ON "invitations" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "invitations_email_idx" ON "invitations" USING btree ("instance_id","email_key");