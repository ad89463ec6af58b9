ALTER TABLE "sso_connections" ADD COLUMN "idp_sso_binding" text DEFAULT 'redirect' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "name_id_format" text DEFAULT 'unspecified' NOT NULL;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD COLUMN "idp_preset" text DEFAULT 'generic' NOT NULL;--> statement-breakpoint
-- Connections made before this asked for an emailAddress NameID; they keep asking for it.
UPDATE "sso_connections" SET "name_id_format" = 'email_address';
