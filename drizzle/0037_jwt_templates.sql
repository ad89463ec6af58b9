CREATE TABLE "jwt_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"name" text NOT NULL,
	"claims" jsonb NOT NULL,
	"lifetime" integer NOT NULL,
	"allowed_clock_skew" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jwt_templates" ADD CONSTRAINT "jwt_templates_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "jwt_templates_instance_name_uq" ON "jwt_templates" USING btree ("instance_id","name");--> statement-breakpoint
CREATE INDEX "jwt_templates_instance_idx" ON "jwt_templates" USING btree ("instance_id","id");