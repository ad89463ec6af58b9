CREATE TABLE "sign_in_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"client_id" text NOT NULL,
	"identifier" text NOT NULL,
	"user_id" text,
	"status" text NOT NULL,
	"first_factor_strategy" text,
	"second_factor_strategy" text,
	"second_factor_failures" integer DEFAULT 0 NOT NULL,
	"session_id" text,
	"abandon_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_up_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"client_id" text NOT NULL,
	"email_address" text NOT NULL,
	"username" text,
	"first_name" text,
	"last_name" text,
	"password_digest" text,
	"unsafe_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text NOT NULL,
	"email_verified_at" bigint,
	"created_user_id" text,
	"created_session_id" text,
	"abandon_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"attempt_id" text NOT NULL,
	"purpose" text NOT NULL,
	"address" text NOT NULL,
	"digest" text NOT NULL,
	"status" text NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_attempts_client_idx" ON "sign_in_attempts" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "sign_up_attempts_client_idx" ON "sign_up_attempts" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "verification_codes_address_idx" ON "verification_codes" USING btree ("instance_id","address","created_at");--> statement-breakpoint
CREATE INDEX "verification_codes_attempt_idx" ON "verification_codes" USING btree ("attempt_id");