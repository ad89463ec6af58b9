CREATE TABLE "account_invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email_address" text NOT NULL,
	"role" text NOT NULL,
	"digest" text NOT NULL,
	"status" text NOT NULL,
	"invited_by" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "account_memberships" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "setup_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"digest" text NOT NULL,
	"created_at" bigint NOT NULL,
	"used_at" bigint,
	"revoked_at" bigint
);
--> statement-breakpoint
ALTER TABLE "instances" ADD COLUMN "kind" text DEFAULT 'customer' NOT NULL;--> statement-breakpoint
ALTER TABLE "account_invitations" ADD CONSTRAINT "account_invitations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_memberships" ADD CONSTRAINT "account_memberships_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_memberships" ADD CONSTRAINT "account_memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_invitations_digest_uq" ON "account_invitations" USING btree ("digest");--> statement-breakpoint
CREATE INDEX "account_invitations_account_idx" ON "account_invitations" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "account_memberships_uq" ON "account_memberships" USING btree ("account_id","user_id");--> statement-breakpoint
CREATE INDEX "account_memberships_user_idx" ON "account_memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "setup_tokens_digest_uq" ON "setup_tokens" USING btree ("digest");