CREATE INDEX "users_created_at_idx" ON "users" USING btree ("instance_id","created_at");--> statement-breakpoint
CREATE INDEX "users_last_sign_in_idx" ON "users" USING btree ("instance_id","last_sign_in_at");--> statement-breakpoint
CREATE INDEX "users_banned_idx" ON "users" USING btree ("instance_id","id") WHERE "users"."banned";--> statement-breakpoint
CREATE INDEX "users_locked_idx" ON "users" USING btree ("instance_id","id") WHERE "users"."locked";--> statement-breakpoint
CREATE INDEX "users_sort_name_idx" ON "users" USING btree ("instance_id",lower(coalesce("first_name", '') || ' ' || coalesce("last_name", '') || ' ' || coalesce("username", '')),"id");