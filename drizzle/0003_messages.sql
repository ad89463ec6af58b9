CREATE TABLE "emails" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text,
	"to_address" text NOT NULL,
	"from_address" text NOT NULL,
	"template" text NOT NULL,
	"locale" text NOT NULL,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"text" text NOT NULL,
	"data" jsonb NOT NULL,
	"status" text NOT NULL,
	"delivered_by" text NOT NULL,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text,
	"to_number" text NOT NULL,
	"from_number" text,
	"template" text NOT NULL,
	"locale" text NOT NULL,
	"body" text NOT NULL,
	"data" jsonb NOT NULL,
	"status" text NOT NULL,
	"delivered_by" text NOT NULL,
	"error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "emails_instance_idx" ON "emails" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "emails_pending_idx" ON "emails" USING btree ("status","updated_at") WHERE "emails"."status" <> 'delivered';--> statement-breakpoint
CREATE INDEX "sms_messages_instance_idx" ON "sms_messages" USING btree ("instance_id","id");