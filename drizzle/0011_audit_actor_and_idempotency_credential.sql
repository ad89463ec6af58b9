ALTER TABLE "audit_logs" ADD COLUMN "actor_kind" text;--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD COLUMN "credential_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_records" DROP CONSTRAINT "idempotency_records_instance_id_key_pk";--> statement-breakpoint
ALTER TABLE "idempotency_records" ADD CONSTRAINT "idempotency_records_instance_id_credential_id_key_pk" PRIMARY KEY("instance_id","credential_id","key");
