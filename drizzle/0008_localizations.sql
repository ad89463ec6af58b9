CREATE TABLE "localization_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"locale" text NOT NULL,
	"resource" text NOT NULL,
	"content" jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"actor" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "localizations" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"locale" text NOT NULL,
	"resource" text NOT NULL,
	"content" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_by" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "locale" text;--> statement-breakpoint
ALTER TABLE "sign_up_attempts" ADD COLUMN "locale" text;--> statement-breakpoint
CREATE INDEX "localization_revisions_resource_idx" ON "localization_revisions" USING btree ("instance_id","resource","locale","id");--> statement-breakpoint
CREATE UNIQUE INDEX "localizations_uq" ON "localizations" USING btree ("instance_id","resource","locale");--> statement-breakpoint
CREATE INDEX "localizations_instance_idx" ON "localizations" USING btree ("instance_id","locale");