-- variable-length hop 1..3, admin: groups by id and every project a walk of 1 to 3 CONTAINS
-- edges reaches, one row per (group, project, depth). A walk continues only through live
-- groups (the correct rule: every node of a walk must be readable), and never revisits a node.
-- The walk is done as arrays: the live groups (the only kind that can sit inside a CONTAINS
-- walk) are read once, the CONTAINS edges that leave one of them once, and the hops 1..3 are
-- array functions over that one edge array (an edge array holds only edges whose source is
-- live, so each step leaves only from live groups); then the start groups and the projects
-- reached are read by id. Four table reads, whatever the depth.
WITH
  (SELECT groupArray(id) FROM gl_group FINAL WHERE NOT _deleted) AS live,
  (
    SELECT groupArray((source_id, target_id, target_kind = 'Group'))
    FROM gl_edge FINAL
    PREWHERE relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND target_kind IN ('Group', 'Project')
      AND (target_id, target_kind) != (source_id, source_kind)
      AND source_id IN (SELECT arrayJoin(live))
    WHERE NOT _deleted
  ) AS edges,
  arrayFilter(e -> has({group_ids:Array(Int64)}, e.1), edges) AS w1,
  arrayFlatten(arrayMap(p -> arrayMap(e -> (p.1, e.2, e.3), arrayFilter(e -> e.1 = p.2, edges)), arrayFilter(p -> p.3, w1))) AS w2,
  arrayFlatten(arrayMap(p -> arrayMap(e -> (p.1, e.2), arrayFilter(e -> e.1 = p.2 AND NOT e.3, edges)), arrayFilter(p -> p.3 AND p.2 != p.1, w2))) AS w3,
  arrayDistinct(arrayConcat(
     arrayMap(p -> (p.1, p.2, toUInt8(1)), arrayFilter(p -> NOT p.3, w1)),
     arrayMap(p -> (p.1, p.2, toUInt8(2)), arrayFilter(p -> NOT p.3, w2)),
     arrayMap(p -> (p.1, p.2, toUInt8(3)), w3))) AS walks
SELECT g.id AS n0_id, g.full_path AS n0_full_path, p.id AS n1_id, p.full_path AS n1_full_path,
  'CONTAINS' AS e0_kind, true AS e0_fwd, w.depth AS e0_depth
FROM (SELECT w.1 AS a, w.2 AS b, w.3 AS depth FROM (SELECT arrayJoin(walks) AS w)) AS w
INNER JOIN (
  SELECT id, full_path FROM gl_group FINAL
  PREWHERE id IN {group_ids:Array(Int64)}
  WHERE NOT _deleted
) AS g ON g.id = w.a
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE id IN (SELECT arrayJoin(arrayMap(w -> w.2, walks)))
  WHERE NOT _deleted
) AS p ON p.id = w.b
ORDER BY n0_id ASC, n1_id ASC, e0_depth ASC
LIMIT {limit:UInt64}
