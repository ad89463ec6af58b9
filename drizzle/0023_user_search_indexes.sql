CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "email_addresses_trgm_idx" ON "email_addresses" USING gin ("email_key" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "phone_numbers_trgm_idx" ON "phone_numbers" USING gin ("phone_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "users_query_trgm_idx" ON "users" USING gin ("first_name" gin_trgm_ops,"last_name" gin_trgm_ops,"username" gin_trgm_ops,"external_id" gin_trgm_ops);