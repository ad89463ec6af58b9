CREATE TABLE "network_acls" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"action" text NOT NULL,
	"cidr" text NOT NULL,
	"surfaces" jsonb NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_policies" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"budgets" jsonb NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "network_acls" ADD CONSTRAINT "network_acls_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rate_limit_policies" ADD CONSTRAINT "rate_limit_policies_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "network_acls_instance_idx" ON "network_acls" USING btree ("instance_id","id");