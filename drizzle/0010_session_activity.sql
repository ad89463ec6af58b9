ALTER TABLE "sessions" ADD COLUMN "ip_address" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "browser_name" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "browser_version" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "device_type" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "os_name" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "is_mobile" boolean;