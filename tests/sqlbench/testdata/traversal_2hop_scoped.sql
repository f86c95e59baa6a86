-- traversal, two hops, scoped: as traversal_2hop_admin.sql; edges and projects inside the
-- prefixes of floor 10, merge requests inside those of floor 20, users global.
WITH
  e0 AS (
    SELECT source_id AS u_id, target_id AS mr_id
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String}))
      AND relationship_kind = 'AUTHORED' AND source_kind = 'User' AND source_id IN {user_ids:Array(Int64)} AND target_kind = 'MergeRequest'
    WHERE NOT _deleted
  ),
  mr AS (
    SELECT id, iid, title FROM gl_merge_request FINAL
    PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String}))
      AND id IN (SELECT mr_id FROM e0)
    WHERE NOT _deleted
  ),
  e1 AS (
    SELECT source_id AS mr_id, target_id AS p_id
    FROM gl_edge FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String}))
      AND relationship_kind = 'IN_PROJECT' AND source_kind = 'MergeRequest' AND source_id IN (SELECT id FROM mr) AND target_kind = 'Project'
    WHERE NOT _deleted
  )
SELECT u.id AS n0_id, u.username AS n0_username, mr.id AS n1_id, mr.iid AS n1_iid, mr.title AS n1_title,
  p.id AS n2_id, p.full_path AS n2_full_path,
  'AUTHORED' AS e0_kind, true AS e0_fwd, 1 AS e0_depth, 'IN_PROJECT' AS e1_kind, true AS e1_fwd, 1 AS e1_depth
FROM (
  SELECT id, username FROM gl_user FINAL
  PREWHERE id IN {user_ids:Array(Int64)}
  WHERE NOT _deleted
) AS u
INNER JOIN e0 ON e0.u_id = u.id
INNER JOIN mr ON mr.id = e0.mr_id
INNER JOIN e1 ON e1.mr_id = mr.id
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String}))
    AND id IN (SELECT p_id FROM e1)
  WHERE NOT _deleted
) AS p ON p.id = e1.p_id
ORDER BY n0_id ASC, n1_id ASC, n2_id ASC
LIMIT {limit:UInt64}
