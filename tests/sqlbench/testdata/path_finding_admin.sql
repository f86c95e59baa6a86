-- path finding, admin: every path of 1 to 3 MEMBER_OF/CONTAINS edges from users to the
-- projects of an id range, shortest first. By the ontology users' MEMBER_OF edges lead to
-- groups and projects, and CONTAINS leads from groups to groups and projects, so the nodes
-- inside a path are groups; each must be live. Each edge set is read once into an array
-- (a scalar sub-query runs once per statement), so the joins never scan an edge table again.
WITH
  (
    SELECT groupArray(id) FROM gl_project FINAL
    PREWHERE id >= {project_from:Int64} AND id <= {project_to:Int64}
    WHERE NOT _deleted
  ) AS dst,
  (
    SELECT groupArray((source_id, target_id, CAST(target_kind AS String), CAST(relationship_kind AS String)))
    FROM gl_edge FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'User' AND source_id IN {user_ids:Array(Int64)}
    WHERE NOT _deleted AND source_id IN (SELECT id FROM gl_user FINAL PREWHERE id IN {user_ids:Array(Int64)} WHERE NOT _deleted)
  ) AS f_edges,
  (
    SELECT groupArray((source_id, target_id, CAST(relationship_kind AS String)))
    FROM gl_edge_by_target FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND target_kind = 'Project' AND target_id IN (SELECT arrayJoin(dst)) AND source_kind = 'Group'
    WHERE NOT _deleted
  ) AS b_edges,
  (
    SELECT groupArray((source_id, target_id, CAST(relationship_kind AS String)))
    FROM gl_edge FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'Group' AND target_kind = 'Group'
      AND source_id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Group', f_edges))))
      AND target_id IN (SELECT arrayJoin(arrayMap(e -> e.1, b_edges))) AND source_id != target_id
    WHERE NOT _deleted
  ) AS m_edges,
  (
    SELECT groupArray(id) FROM gl_group FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayConcat(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Group', f_edges)), arrayMap(e -> e.2, m_edges))))
    WHERE NOT _deleted
  ) AS ok,
  f AS (SELECT e.1 AS x, e.2 AS y, e.3 AS y_kind, e.4 AS kind FROM (SELECT arrayJoin(f_edges) AS e)),
  b AS (SELECT e.1 AS x, e.2 AS y, e.3 AS kind FROM (SELECT arrayJoin(b_edges) AS e)),
  m AS (SELECT e.1 AS x, e.2 AS y, e.3 AS kind FROM (SELECT arrayJoin(m_edges) AS e)),
  paths AS (
    SELECT 1 AS depth, [(f.x, 'User'), (f.y, f.y_kind)] AS path_nodes, [f.kind] AS path_kinds
    FROM f
    WHERE f.y_kind = 'Project' AND f.y IN (SELECT arrayJoin(dst))
    UNION ALL
    SELECT 2 AS depth, [(f.x, 'User'), (f.y, 'Group'), (b.y, 'Project')] AS path_nodes, [f.kind, b.kind] AS path_kinds
    FROM f INNER JOIN b ON b.x = f.y
    WHERE f.y_kind = 'Group' AND f.y IN (SELECT arrayJoin(ok))
    UNION ALL
    SELECT 3 AS depth, [(f.x, 'User'), (f.y, 'Group'), (m.y, 'Group'), (b.y, 'Project')] AS path_nodes, [f.kind, m.kind, b.kind] AS path_kinds
    FROM f INNER JOIN m ON m.x = f.y INNER JOIN b ON b.x = m.y
    WHERE f.y_kind = 'Group' AND f.y IN (SELECT arrayJoin(ok)) AND m.y IN (SELECT arrayJoin(ok))
  )
SELECT depth, path_nodes, path_kinds
FROM paths
ORDER BY depth ASC, toString(path_nodes) ASC, toString(path_kinds) ASC
LIMIT {limit:UInt64}
