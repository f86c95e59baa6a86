-- variable-length hop 1..3, admin: groups by id and every project a walk of 1 to 3 CONTAINS
-- edges reaches, one row per (group, project, depth). A walk continues only through live
-- groups (the correct rule: every node of a walk must be readable), and never revisits a node.
-- Each step's edges and live groups are read once into an array (a scalar sub-query runs once
-- per statement), so the joins never scan an edge table again.
WITH
  (
    SELECT groupArray((source_id, target_id, CAST(target_kind AS String)))
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN {group_ids:Array(Int64)}
      AND (target_id, target_kind) != (source_id, source_kind)
    WHERE NOT _deleted
  ) AS s1_edges,
  (
    SELECT groupArray(id) FROM gl_group FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Group', s1_edges))))
    WHERE NOT _deleted
  ) AS m1,
  (
    SELECT groupArray((source_id, target_id, CAST(target_kind AS String)))
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT arrayJoin(m1))
      AND (target_id, target_kind) != (source_id, source_kind)
    WHERE NOT _deleted
  ) AS s2_edges,
  (
    SELECT groupArray(id) FROM gl_group FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Group', s2_edges))))
    WHERE NOT _deleted
  ) AS m2,
  (
    SELECT groupArray((source_id, target_id))
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND source_id IN (SELECT arrayJoin(m2)) AND target_kind = 'Project'
    WHERE NOT _deleted
  ) AS s3_edges,
  s1 AS (SELECT e.1 AS x, e.2 AS y, e.3 AS y_kind FROM (SELECT arrayJoin(s1_edges) AS e)),
  s2 AS (SELECT e.1 AS x, e.2 AS y, e.3 AS y_kind FROM (SELECT arrayJoin(s2_edges) AS e)),
  s3 AS (SELECT e.1 AS x, e.2 AS y FROM (SELECT arrayJoin(s3_edges) AS e)),
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
  PREWHERE id IN (SELECT arrayJoin(arrayConcat(
    arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Project', s1_edges)),
    arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Project', s2_edges)),
    arrayMap(e -> e.2, s3_edges))))
  WHERE NOT _deleted
) AS p ON p.id = w.b
ORDER BY n0_id ASC, n1_id ASC, e0_depth ASC
LIMIT {limit:UInt64}
