-- neighbors, admin: every neighbor of merge requests by id over every relationship type, both
-- directions. One scan of gl_edge for the outgoing edges and one of gl_edge_by_target for the
-- incoming ones, then one scan per neighbor kind keeps the live neighbors.
WITH
  c AS (
    SELECT id FROM gl_merge_request FINAL
    PREWHERE id IN {mr_ids:Array(Int64)}
    WHERE NOT _deleted
  ),
  nb AS (
    SELECT source_id AS center_id, target_id AS nbr_id, CAST(target_kind AS String) AS nbr_kind,
      CAST(relationship_kind AS String) AS rel_kind, true AS outgoing
    FROM gl_edge FINAL
    PREWHERE source_kind = 'MergeRequest' AND source_id IN {mr_ids:Array(Int64)}
      AND (relationship_kind, target_kind) IN (('HAS_LABEL', 'Label'), ('IN_MILESTONE', 'Milestone'), ('HAS_NOTE', 'Note'),
        ('HAS_HEAD_PIPELINE', 'Pipeline'), ('TRIGGERED', 'Pipeline'), ('IN_PROJECT', 'Project'), ('FIXES', 'Vulnerability'), ('CLOSES', 'WorkItem'))
    WHERE NOT _deleted
    UNION ALL
    SELECT target_id AS center_id, source_id AS nbr_id, CAST(source_kind AS String) AS nbr_kind,
      CAST(relationship_kind AS String) AS rel_kind, false AS outgoing
    FROM gl_edge_by_target FINAL
    PREWHERE target_kind = 'MergeRequest' AND target_id IN {mr_ids:Array(Int64)}
      AND relationship_kind IN ('ASSIGNED', 'AUTHORED', 'MERGED', 'REVIEWER') AND source_kind = 'User'
    WHERE NOT _deleted
  ),
  live AS (
    SELECT id, 'Label' AS kind FROM gl_label FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Label') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Milestone' AS kind FROM gl_milestone FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Milestone') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Note' AS kind FROM gl_note FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Note') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Pipeline' AS kind FROM gl_pipeline FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Pipeline') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Project' AS kind FROM gl_project FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Project') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'Vulnerability' AS kind FROM gl_vulnerability FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'Vulnerability') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'WorkItem' AS kind FROM gl_work_item FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'WorkItem') WHERE NOT _deleted
    UNION ALL
    SELECT id, 'User' AS kind FROM gl_user FINAL
    PREWHERE id IN (SELECT nbr_id FROM nb WHERE nbr_kind = 'User') WHERE NOT _deleted
  )
SELECT center_id, nbr_id, nbr_kind, rel_kind, outgoing
FROM nb
WHERE center_id IN (SELECT id FROM c) AND (nbr_id, nbr_kind) IN (SELECT id, kind FROM live)
ORDER BY center_id ASC, rel_kind ASC, nbr_kind ASC, nbr_id ASC, outgoing ASC
LIMIT {limit:UInt64}
