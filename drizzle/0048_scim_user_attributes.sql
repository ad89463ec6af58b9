ALTER TABLE "scim_users" ADD COLUMN "phone_numbers" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "scim_users" ADD COLUMN "addresses" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "scim_users" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "scim_users" ADD COLUMN "preferred_language" text;