ALTER TABLE "organizations" ADD COLUMN "members_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "organizations" o SET "members_count" = c.n FROM (SELECT "organization_id", count(*)::int AS n FROM "organization_memberships" GROUP BY "organization_id") c WHERE o."id" = c."organization_id";--> statement-breakpoint
CREATE FUNCTION "organization_members_count_added"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "organizations" o SET "members_count" = o."members_count" + d.n
    FROM (SELECT "organization_id", count(*)::int AS n FROM added GROUP BY "organization_id") d
   WHERE o."id" = d."organization_id";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "organization_members_count_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "organizations" o SET "members_count" = greatest(o."members_count" - d.n, 0)
    FROM (SELECT "organization_id", count(*)::int AS n FROM removed GROUP BY "organization_id") d
   WHERE o."id" = d."organization_id";
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "organization_memberships_count_insert" AFTER INSERT ON "organization_memberships" REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "organization_members_count_added"();--> statement-breakpoint
CREATE TRIGGER "organization_memberships_count_delete" AFTER DELETE ON "organization_memberships" REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "organization_members_count_removed"();
