-- traversal, one hop, scoped: as traversal_1hop_admin.sql; edges and projects inside the
-- prefixes of floor 10, merge requests inside those of floor 20.
WITH
  (
    SELECT groupArray((source_id, target_id))
    FROM gl_edge_by_target FINAL
    PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND relationship_kind = 'IN_PROJECT' AND target_kind = 'Project' AND target_id IN {project_ids:Array(Int64)} AND source_kind = 'MergeRequest'
    WHERE NOT _deleted
  ) AS edges
SELECT p.id AS n0_id, p.full_path AS n0_full_path, mr.id AS n1_id, mr.iid AS n1_iid, mr.title AS n1_title,
  'IN_PROJECT' AS e0_kind, true AS e0_fwd, 1 AS e0_depth
FROM (SELECT arrayJoin(edges) AS e) AS h
INNER JOIN (
  SELECT id, full_path FROM gl_project FINAL
  PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN {project_ids:Array(Int64)}
  WHERE NOT _deleted
) AS p ON p.id = h.e.2
INNER JOIN (
  SELECT id, iid, title FROM gl_merge_request FINAL
  PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN (SELECT arrayJoin(arrayMap(e -> e.1, edges)))
  WHERE NOT _deleted AND state = {state:String}
) AS mr ON mr.id = h.e.1
ORDER BY n0_id ASC, n1_id ASC
LIMIT {limit:UInt64}
