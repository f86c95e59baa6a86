-- neighbors, admin: every neighbor of merge requests by id over every relationship type, both
-- directions. One scan of gl_edge for the outgoing edges and one of gl_edge_by_target for the
-- incoming ones, read once into an array (a scalar sub-query runs once per statement); then one
-- lookup per neighbor kind keeps the live neighbors.
WITH
  (
    SELECT groupArray((center_id, nbr_id, nbr_kind, rel_kind, outgoing)) FROM (
      SELECT source_id AS center_id, target_id AS nbr_id, CAST(target_kind AS String) AS nbr_kind,
        CAST(relationship_kind AS String) AS rel_kind, true AS outgoing
      FROM gl_edge FINAL
      PREWHERE source_kind = 'MergeRequest' AND source_id IN {mr_ids:Array(Int64)}
        AND (relationship_kind, target_kind) IN (('CLOSES', 'WorkItem'), ('DEPLOYED_TO', 'Deployment'), ('FIXES', 'Vulnerability'),
          ('HAS_DIFF', 'MergeRequestDiff'), ('HAS_HEAD_PIPELINE', 'Pipeline'), ('HAS_LABEL', 'Label'),
          ('HAS_LATEST_DIFF', 'MergeRequestDiff'), ('HAS_NOTE', 'Note'), ('IN_MILESTONE', 'Milestone'),
          ('IN_PROJECT', 'Project'), ('MERGED_AT_COMMIT', 'Commit'), ('SOURCE_PROJECT', 'Project'),
          ('TRIGGERED', 'Pipeline'))
      WHERE NOT _deleted
      UNION ALL
      SELECT target_id AS center_id, source_id AS nbr_id, CAST(source_kind AS String) AS nbr_kind,
        CAST(relationship_kind AS String) AS rel_kind, false AS outgoing
      FROM gl_edge_by_target FINAL
      PREWHERE target_kind = 'MergeRequest' AND target_id IN {mr_ids:Array(Int64)}
        AND (relationship_kind, source_kind) IN (('APPROVED', 'User'), ('ASSIGNED', 'User'), ('AUTHORED', 'User'),
          ('CLOSED', 'User'), ('CREATED_FOR_MR', 'Environment'), ('LAST_EDITED_BY', 'User'), ('MERGED', 'User'),
          ('REVIEWER', 'User'), ('UPDATED_BY', 'User'))
      WHERE NOT _deleted
    )
  ) AS nb,
  live AS (
    SELECT id, 'Label' AS kind FROM gl_label FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Label', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Milestone' AS kind FROM gl_milestone FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Milestone', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Note' AS kind FROM gl_note FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Note', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Pipeline' AS kind FROM gl_pipeline FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Pipeline', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Project' AS kind FROM gl_project FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Project', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Vulnerability' AS kind FROM gl_vulnerability FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Vulnerability', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'WorkItem' AS kind FROM gl_work_item FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'WorkItem', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Commit' AS kind FROM gl_commit FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Commit', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Deployment' AS kind FROM gl_deployment FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Deployment', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Environment' AS kind FROM gl_environment FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'Environment', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'MergeRequestDiff' AS kind FROM gl_merge_request_diff FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'MergeRequestDiff', nb))))
    WHERE NOT _deleted
    UNION ALL
    SELECT id, 'User' AS kind FROM gl_user FINAL
    PREWHERE id IN (SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = 'User', nb))))
    WHERE NOT _deleted
  )
SELECT e.1 AS center_id, e.2 AS nbr_id, e.3 AS nbr_kind, e.4 AS rel_kind, e.5 AS outgoing
FROM (SELECT arrayJoin(nb) AS e)
WHERE e.1 IN (
    SELECT id FROM gl_merge_request FINAL
    PREWHERE id IN {mr_ids:Array(Int64)}
    WHERE NOT _deleted
  )
  AND (e.2, e.3) IN (SELECT id, kind FROM live)
ORDER BY center_id ASC, rel_kind ASC, nbr_kind ASC, nbr_id ASC, outgoing ASC
LIMIT {limit:UInt64}
