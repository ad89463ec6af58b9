CREATE TABLE "sms_settings" (
	"instance_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"account_id" text,
	"auth_token_encrypted" text,
	"from_number" text,
	"messaging_service_id" text,
	"api_base_url" text,
	"allowed_country_codes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sign_up_attempts" ALTER COLUMN "email_address" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "provider_message_id" text;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sms_messages" ADD COLUMN "next_attempt_at" bigint;--> statement-breakpoint
ALTER TABLE "sign_up_attempts" ADD COLUMN "phone_number" text;--> statement-breakpoint
ALTER TABLE "sign_up_attempts" ADD COLUMN "phone_verified_at" bigint;--> statement-breakpoint
ALTER TABLE "sms_settings" ADD CONSTRAINT "sms_settings_instance_id_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sms_messages_due_idx" ON "sms_messages" USING btree ("next_attempt_at") WHERE "sms_messages"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "sms_messages_provider_idx" ON "sms_messages" USING btree ("provider_message_id");