CREATE TABLE "daily_metric_counts" (
	"instance_id" text NOT NULL,
	"metric" text NOT NULL,
	"day" integer NOT NULL,
	"shard" smallint NOT NULL,
	"value" bigint NOT NULL,
	CONSTRAINT "daily_metric_counts_instance_id_metric_day_shard_pk" PRIMARY KEY("instance_id","metric","day","shard")
);
