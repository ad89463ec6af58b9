CREATE TABLE "daily_metrics" (
	"instance_id" text NOT NULL,
	"metric" text NOT NULL,
	"day" integer NOT NULL,
	"value" bigint NOT NULL,
	CONSTRAINT "daily_metrics_instance_id_metric_day_pk" PRIMARY KEY("instance_id","metric","day")
);
