CREATE TABLE "organization_membership_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_membership_requests" ADD CONSTRAINT "organization_membership_requests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_membership_requests" ADD CONSTRAINT "organization_membership_requests_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "organization_membership_requests_uq" ON "organization_membership_requests" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE INDEX "organization_membership_requests_user_idx" ON "organization_membership_requests" USING btree ("user_id");