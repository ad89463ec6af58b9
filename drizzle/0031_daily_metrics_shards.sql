ALTER TABLE "daily_metrics" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "daily_metrics" DROP CONSTRAINT "daily_metrics_instance_id_metric_day_pk";--> statement-breakpoint
ALTER TABLE "daily_metrics" ADD CONSTRAINT "daily_metrics_instance_id_metric_day_shard_pk" PRIMARY KEY("instance_id","metric","day","shard");
