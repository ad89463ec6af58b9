CREATE TABLE "waitlist_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"email_address" text NOT NULL,
	"email_key" text NOT NULL,
	"status" text NOT NULL,
	"ticket_digest" text,
	"ticket_expires_at" bigint,
	"invited_at" bigint,
	"user_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "waitlist_entries" ADD CONSTRAINT "waitlist_entries_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "waitlist_entries_email_uq" ON "waitlist_entries" USING btree ("instance_id","email_key");--> statement-breakpoint
CREATE UNIQUE INDEX "waitlist_entries_ticket_uq" ON "waitlist_entries" USING btree ("ticket_digest");--> statement-breakpoint
CREATE INDEX "waitlist_entries_instance_idx" ON "waitlist_entries" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "waitlist_entries_status_idx" ON "waitlist_entries" USING btree ("instance_id","status","id");