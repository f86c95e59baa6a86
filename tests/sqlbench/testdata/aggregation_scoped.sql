-- aggregation, scoped: as aggregation_admin.sql; pipelines inside the prefixes of floor 20,
-- edges and projects inside those of floor 10.
WITH
  pl AS (
    SELECT id, created_at, duration FROM gl_pipeline FINAL
    PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String}))
    WHERE NOT _deleted AND status = {status:String}
  ),
  e AS (
    SELECT source_id AS pl_id, target_id AS p_id
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND relationship_kind = 'IN_PROJECT' AND source_kind = 'Pipeline' AND target_kind = 'Project'
    WHERE NOT _deleted
  ),
  p AS (
    SELECT id, name FROM gl_project FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String}))
    WHERE NOT _deleted
  )
SELECT p.id AS n1_id, any(p.name) AS n1_name, toDate32(toStartOfMonth(pl.created_at)) AS g1, count() AS m0, avgOrNull(pl.duration) AS m1
FROM pl
INNER JOIN e ON e.pl_id = pl.id
INNER JOIN p ON p.id = e.p_id
GROUP BY p.id, g1
ORDER BY m0 DESC, n1_id ASC, g1 ASC NULLS LAST
LIMIT {limit:UInt64}
