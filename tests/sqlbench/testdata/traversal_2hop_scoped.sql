-- traversal, two hops, scoped: as traversal_2hop_admin.sql; edges and projects inside the
-- prefixes of floor 10, merge requests inside those of floor 20, users global.
WITH
  (
    SELECT groupArray((source_id, target_id))
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND relationship_kind = 'AUTHORED' AND source_kind = 'User' AND source_id IN {user_ids:Array(Int64)} AND target_kind = 'MergeRequest'
    WHERE NOT _deleted
  ) AS e0,
  (
    SELECT groupArray((id, iid, title)) FROM gl_merge_request FINAL
    PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN (SELECT arrayJoin(arrayMap(e -> e.2, e0)))
    WHERE NOT _deleted
  ) AS mrs,
  (
    SELECT groupArray((source_id, target_id))
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND relationship_kind = 'IN_PROJECT' AND source_kind = 'MergeRequest' AND source_id IN (SELECT arrayJoin(arrayMap(m -> m.1, mrs))) AND target_kind = 'Project'
    WHERE NOT _deleted
  ) AS e1
SELECT u.id AS n0_id, u.username AS n0_username, mr.m.1 AS n1_id, mr.m.2 AS n1_iid, mr.m.3 AS n1_title,
  p.id AS n2_id, p.full_path AS n2_full_path,
  'AUTHORED' AS e0_kind, true AS e0_fwd, 1 AS e0_depth, 'IN_PROJECT' AS e1_kind, true AS e1_fwd, 1 AS e1_depth
FROM (
  SELECT id, username FROM gl_user FINAL
  PREWHERE id IN {user_ids:Array(Int64)}
  WHERE NOT _deleted
) AS u
INNER JOIN (SELECT arrayJoin(e0) AS e) AS h0 ON h0.e.1 = u.id
INNER JOIN (SELECT arrayJoin(mrs) AS m) AS mr ON mr.m.1 = h0.e.2
INNER JOIN (SELECT arrayJoin(e1) AS e) AS h1 ON h1.e.1 = mr.m.1
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN (SELECT arrayJoin(arrayMap(e -> e.2, e1)))
  WHERE NOT _deleted
) AS p ON p.id = h1.e.2
ORDER BY n0_id ASC, n1_id ASC, n2_id ASC
LIMIT {limit:UInt64}
