ALTER TABLE "sessions" ADD COLUMN "first_factor_verified_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "second_factor_verified_at" bigint;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "reverification" jsonb;