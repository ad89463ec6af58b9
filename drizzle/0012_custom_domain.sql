ALTER TABLE "instances" ADD COLUMN "custom_domain" text;--> statement-breakpoint
CREATE UNIQUE INDEX "instances_custom_domain_uq" ON "instances" USING btree ("custom_domain");