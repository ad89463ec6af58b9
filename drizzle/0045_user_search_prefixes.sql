DROP INDEX "email_addresses_trgm_idx";--> statement-breakpoint
DROP INDEX "users_query_trgm_idx";--> statement-breakpoint
CREATE INDEX "email_addresses_search_idx" ON "email_addresses" USING btree ("instance_id",("email_key" collate "C"));--> statement-breakpoint
CREATE INDEX "email_addresses_domain_idx" ON "email_addresses" USING btree ("instance_id",(split_part("email_key", '@', 2) collate "C"));--> statement-breakpoint
CREATE INDEX "phone_numbers_search_idx" ON "phone_numbers" USING btree ("instance_id",("phone_number" collate "C"));--> statement-breakpoint
CREATE INDEX "users_search_first_idx" ON "users" USING btree ("instance_id",(lower("first_name") collate "C"));--> statement-breakpoint
CREATE INDEX "users_search_last_idx" ON "users" USING btree ("instance_id",(lower("last_name") collate "C"));--> statement-breakpoint
CREATE INDEX "users_search_username_idx" ON "users" USING btree ("instance_id",("username_key" collate "C"));--> statement-breakpoint
CREATE INDEX "users_search_external_idx" ON "users" USING btree ("instance_id",("external_id" collate "C"));