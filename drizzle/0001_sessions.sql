CREATE TABLE "signing_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"state" text NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key" text NOT NULL,
	"created_at" bigint NOT NULL,
	"activated_at" bigint,
	"retired_at" bigint,
	"remove_after" bigint
);
--> statement-breakpoint
CREATE TABLE "clients" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"token_digest" text NOT NULL,
	"last_active_session_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"digest" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"rotated_at" bigint
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text NOT NULL,
	"client_id" text,
	"status" text NOT NULL,
	"actor" jsonb,
	"last_active_organization_id" text,
	"last_active_at" bigint NOT NULL,
	"expire_at" bigint NOT NULL,
	"abandon_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tickets" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"kind" text NOT NULL,
	"digest" text NOT NULL,
	"user_id" text NOT NULL,
	"actor" jsonb,
	"status" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "signing_keys_instance_idx" ON "signing_keys" USING btree ("instance_id","state");--> statement-breakpoint
CREATE UNIQUE INDEX "clients_token_uq" ON "clients" USING btree ("token_digest");--> statement-breakpoint
CREATE INDEX "refresh_tokens_session_idx" ON "refresh_tokens" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "sessions_instance_idx" ON "sessions" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id","id");--> statement-breakpoint
CREATE INDEX "sessions_client_idx" ON "sessions" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "sessions_due_idx" ON "sessions" USING btree ("status","expire_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tickets_digest_uq" ON "tickets" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "tickets_instance_idx" ON "tickets" USING btree ("instance_id","id");