CREATE TABLE "billing_plans" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"payer" text NOT NULL,
	"prices" jsonb NOT NULL,
	"features" jsonb NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_processor_events" (
	"instance_id" text NOT NULL,
	"processor" text NOT NULL,
	"event_id" text NOT NULL,
	"received_at" bigint NOT NULL,
	CONSTRAINT "billing_processor_events_instance_id_processor_event_id_pk" PRIMARY KEY("instance_id","processor","event_id")
);
--> statement-breakpoint
CREATE TABLE "billing_settings" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"processor" text NOT NULL,
	"secret_key_encrypted" text,
	"webhook_secret_encrypted" text,
	"api_base_url" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_subscriptions" (
	"id" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"subject" text NOT NULL,
	"plan_id" text,
	"status" text NOT NULL,
	"current_period_start" bigint,
	"current_period_end" bigint,
	"cancel_at" bigint,
	"canceled_at" bigint,
	"processor" text NOT NULL,
	"processor_subscription_id" text NOT NULL,
	"processor_customer_id" text,
	"processor_price_id" text,
	"processor_updated_at" bigint NOT NULL,
	"deleted_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "billing_plans" ADD CONSTRAINT "billing_plans_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_processor_events" ADD CONSTRAINT "billing_processor_events_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_settings" ADD CONSTRAINT "billing_settings_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_subscriptions" ADD CONSTRAINT "billing_subscriptions_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_plans_key_uq" ON "billing_plans" USING btree ("instance_id","key");--> statement-breakpoint
CREATE INDEX "billing_plans_instance_idx" ON "billing_plans" USING btree ("instance_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "billing_subscriptions_processor_uq" ON "billing_subscriptions" USING btree ("instance_id","processor","processor_subscription_id");--> statement-breakpoint
CREATE INDEX "billing_subscriptions_subject_idx" ON "billing_subscriptions" USING btree ("instance_id","subject","id");