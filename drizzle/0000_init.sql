CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"environment" text NOT NULL,
	"fapi_url" text NOT NULL,
	"publishable_key" text NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "secret_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"name" text NOT NULL,
	"digest" text NOT NULL,
	"hint" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "email_addresses" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text NOT NULL,
	"email_address" text NOT NULL,
	"email_key" text NOT NULL,
	"verification_status" text NOT NULL,
	"verification_strategy" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "phone_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"user_id" text NOT NULL,
	"phone_number" text NOT NULL,
	"verification_status" text NOT NULL,
	"verification_strategy" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"external_id" text,
	"first_name" text,
	"last_name" text,
	"username" text,
	"username_key" text,
	"primary_email_address_id" text,
	"primary_phone_number_id" text,
	"password_digest" text,
	"password_hasher" text,
	"public_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"private_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"unsafe_metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"banned" boolean DEFAULT false NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"sessions_version" integer DEFAULT 1 NOT NULL,
	"last_sign_in_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"ip" text,
	"user_agent" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_records" (
	"instance_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_records_instance_id_key_pk" PRIMARY KEY("instance_id","key")
);
--> statement-breakpoint
ALTER TABLE "instances" ADD CONSTRAINT "instances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "secret_keys" ADD CONSTRAINT "secret_keys_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_addresses" ADD CONSTRAINT "email_addresses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "instances_publishable_key_uq" ON "instances" USING btree ("publishable_key");--> statement-breakpoint
CREATE INDEX "instances_account_idx" ON "instances" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "secret_keys_digest_uq" ON "secret_keys" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "secret_keys_instance_idx" ON "secret_keys" USING btree ("instance_id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_addresses_uq" ON "email_addresses" USING btree ("instance_id","email_key");--> statement-breakpoint
CREATE INDEX "email_addresses_user_idx" ON "email_addresses" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "phone_numbers_uq" ON "phone_numbers" USING btree ("instance_id","phone_number");--> statement-breakpoint
CREATE INDEX "phone_numbers_user_idx" ON "phone_numbers" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "users_instance_id_idx" ON "users" USING btree ("instance_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_uq" ON "users" USING btree ("instance_id","username_key");--> statement-breakpoint
CREATE INDEX "users_external_id_idx" ON "users" USING btree ("instance_id","external_id");--> statement-breakpoint
CREATE INDEX "events_instance_type_idx" ON "events" USING btree ("instance_id","type");--> statement-breakpoint
CREATE INDEX "events_instance_id_idx" ON "events" USING btree ("instance_id","id");--> statement-breakpoint
CREATE INDEX "audit_logs_instance_idx" ON "audit_logs" USING btree ("instance_id","id");