ALTER TABLE "passkeys" ADD COLUMN "disabled_at" bigint;--> statement-breakpoint
ALTER TABLE "passkeys" ADD COLUMN "disabled_reason" text;