CREATE TABLE "identifier_lockouts" (
	"instance_id" text NOT NULL,
	"subject" text NOT NULL,
	"locked_until" bigint NOT NULL,
	CONSTRAINT "identifier_lockouts_instance_id_subject_pk" PRIMARY KEY("instance_id","subject")
);
--> statement-breakpoint
CREATE TABLE "known_devices" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"value" text NOT NULL,
	"first_seen_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_in_failures" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"subject" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "locked_until" bigint;--> statement-breakpoint
ALTER TABLE "sign_in_attempts" ADD COLUMN "risk_reasons" jsonb;--> statement-breakpoint
ALTER TABLE "sign_in_attempts" ADD COLUMN "step_up_address" text;--> statement-breakpoint
ALTER TABLE "known_devices" ADD CONSTRAINT "known_devices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "known_devices_uq" ON "known_devices" USING btree ("user_id","kind","value");--> statement-breakpoint
CREATE INDEX "sign_in_failures_subject_idx" ON "sign_in_failures" USING btree ("instance_id","subject","created_at");