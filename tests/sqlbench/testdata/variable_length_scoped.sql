-- variable-length hop 1..3, scoped: as variable_length_admin.sql; the live groups, the edges,
-- the start groups and the projects reached all inside the prefixes of floor 10.
WITH
  (SELECT groupArray(id) FROM gl_group FINAL PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) WHERE NOT _deleted) AS live,
  (
    SELECT groupArray((source_id, target_id, target_kind = 'Group'))
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND relationship_kind = 'CONTAINS' AND source_kind = 'Group' AND target_kind IN ('Group', 'Project')
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
  PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN {group_ids:Array(Int64)}
  WHERE NOT _deleted
) AS g ON g.id = w.a
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN (SELECT arrayJoin(arrayMap(w -> w.2, walks)))
  WHERE NOT _deleted
) AS p ON p.id = w.b
ORDER BY n0_id ASC, n1_id ASC, e0_depth ASC
LIMIT {limit:UInt64}
