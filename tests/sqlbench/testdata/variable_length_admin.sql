-- variable-length hop 1..3, admin: groups by id and every project a walk of 1 to 3 CONTAINS
-- edges reaches, one row per (group, project, depth). A walk continues only through live
-- groups (the correct rule: every node of a walk must be readable), and never revisits a node.
WITH
  s1 AS (
    SELECT source_id AS x, target_id AS y, CAST(target_kind AS String) AS y_kind
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN {group_ids:Array(Int64)}
    WHERE NOT _deleted AND (target_id, target_kind) != (source_id, source_kind)
  ),
  m1 AS (
    SELECT id FROM gl_group FINAL
    PREWHERE id IN (SELECT y FROM s1 WHERE y_kind = 'Group')
    WHERE NOT _deleted
  ),
  s2 AS (
    SELECT source_id AS x, target_id AS y, CAST(target_kind AS String) AS y_kind
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT id FROM m1)
    WHERE NOT _deleted AND (target_id, target_kind) != (source_id, source_kind)
  ),
  m2 AS (
    SELECT id FROM gl_group FINAL
    PREWHERE id IN (SELECT y FROM s2 WHERE y_kind = 'Group')
    WHERE NOT _deleted
  ),
  s3 AS (
    SELECT source_id AS x, target_id AS y
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT id FROM m2) AND target_kind = 'Project'
    WHERE NOT _deleted
  ),
  walks AS (
    SELECT DISTINCT x AS a, y AS b, 1 AS depth FROM s1 WHERE y_kind = 'Project'
    UNION ALL
    SELECT DISTINCT s1.x AS a, s2.y AS b, 2 AS depth
    FROM s1 INNER JOIN s2 ON s2.x = s1.y
    WHERE s1.y_kind = 'Group' AND s2.y_kind = 'Project'
    UNION ALL
    SELECT DISTINCT s1.x AS a, s3.y AS b, 3 AS depth
    FROM s1 INNER JOIN s2 ON s2.x = s1.y INNER JOIN s3 ON s3.x = s2.y
    WHERE s1.y_kind = 'Group' AND s2.y_kind = 'Group' AND s2.y != s1.x
  )
SELECT g.id AS n0_id, g.full_path AS n0_full_path, p.id AS n1_id, p.full_path AS n1_full_path,
  'CONTAINS' AS e0_kind, true AS e0_fwd, w.depth AS e0_depth
FROM walks AS w
INNER JOIN (
  SELECT id, full_path FROM gl_group FINAL
  PREWHERE id IN {group_ids:Array(Int64)}
  WHERE NOT _deleted
) AS g ON g.id = w.a
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE id IN (SELECT b FROM walks)
  WHERE NOT _deleted
) AS p ON p.id = w.b
ORDER BY n0_id ASC, n1_id ASC, e0_depth ASC
LIMIT {limit:UInt64}
