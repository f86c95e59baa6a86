-- path finding, admin: every path of 1 to 3 MEMBER_OF/CONTAINS edges from users to the
-- projects of an id range, shortest first. By the ontology users' MEMBER_OF edges lead to
-- groups and projects, and CONTAINS leads from groups to groups and projects, so the nodes
-- inside a path are groups; each must be live.
WITH
  dst AS (
    SELECT id FROM gl_project FINAL
    PREWHERE id >= {project_from:Int64} AND id <= {project_to:Int64}
    WHERE NOT _deleted
  ),
  f AS (
    SELECT source_id AS x, target_id AS y, CAST(target_kind AS String) AS y_kind, CAST(relationship_kind AS String) AS kind
    FROM gl_edge FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'User'
      AND source_id IN {user_ids:Array(Int64)}
    WHERE NOT _deleted AND source_id IN (SELECT id FROM gl_user FINAL PREWHERE id IN {user_ids:Array(Int64)} WHERE NOT _deleted)
  ),
  b AS (
    SELECT source_id AS x, target_id AS y, CAST(relationship_kind AS String) AS kind
    FROM gl_edge_by_target FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND target_kind = 'Project' AND target_id IN (SELECT id FROM dst) AND source_kind = 'Group'
    WHERE NOT _deleted
  ),
  m AS (
    SELECT source_id AS x, target_id AS y, CAST(relationship_kind AS String) AS kind
    FROM gl_edge FINAL
    PREWHERE relationship_kind IN ('CONTAINS', 'MEMBER_OF') AND source_kind = 'Group' AND target_kind = 'Group'
      AND source_id IN (SELECT y FROM f WHERE y_kind = 'Group') AND target_id IN (SELECT x FROM b) AND source_id != target_id
    WHERE NOT _deleted
  ),
  ok AS (
    SELECT id FROM gl_group FINAL
    PREWHERE id IN (SELECT y FROM f WHERE y_kind = 'Group' UNION ALL SELECT y FROM m)
    WHERE NOT _deleted
  ),
  paths AS (
    SELECT 1 AS depth, [(f.x, 'User'), (f.y, f.y_kind)] AS path_nodes, [f.kind] AS path_kinds
    FROM f
    WHERE f.y_kind = 'Project' AND f.y IN (SELECT id FROM dst)
    UNION ALL
    SELECT 2 AS depth, [(f.x, 'User'), (f.y, 'Group'), (b.y, 'Project')] AS path_nodes, [f.kind, b.kind] AS path_kinds
    FROM f INNER JOIN b ON b.x = f.y
    WHERE f.y_kind = 'Group' AND f.y IN (SELECT id FROM ok)
    UNION ALL
    SELECT 3 AS depth, [(f.x, 'User'), (f.y, 'Group'), (m.y, 'Group'), (b.y, 'Project')] AS path_nodes, [f.kind, m.kind, b.kind] AS path_kinds
    FROM f INNER JOIN m ON m.x = f.y INNER JOIN b ON b.x = m.y
    WHERE f.y_kind = 'Group' AND f.y IN (SELECT id FROM ok) AND m.y IN (SELECT id FROM ok)
  )
SELECT depth, path_nodes, path_kinds
FROM paths
ORDER BY depth ASC, toString(path_nodes) ASC, toString(path_kinds) ASC
LIMIT {limit:UInt64}
