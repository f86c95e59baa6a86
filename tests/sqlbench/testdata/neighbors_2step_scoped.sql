-- neighbors in two steps, scoped, step 1 (docs/sql-bench.md, "Two-step plans"): the edges of the
-- merge requests by id, one scan of gl_edge for the outgoing arms and one of gl_edge_by_target for
-- the incoming ones, kept only for readable, live centers, in the answer's order; the neighbors are
-- not looked up yet, so the limit is the plan's (1001), not the page. Step 2 is
-- neighbors_2step_scoped.lookup.sql; the harness joins the two as it does the compiled plan's.
SELECT center_id, nbr_id, nbr_kind, rel_kind, outgoing
FROM (
      SELECT source_id AS center_id, target_id AS nbr_id, CAST(target_kind AS String) AS nbr_kind,
        CAST(relationship_kind AS String) AS rel_kind, true AS outgoing
      FROM gl_edge FINAL
      PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND source_kind = 'MergeRequest' AND source_id IN {mr_ids:Array(Int64)}
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
      PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND target_kind = 'MergeRequest' AND target_id IN {mr_ids:Array(Int64)}
        AND (relationship_kind, source_kind) IN (('APPROVED', 'User'), ('ASSIGNED', 'User'), ('AUTHORED', 'User'),
          ('CLOSED', 'User'), ('CREATED_FOR_MR', 'Environment'), ('LAST_EDITED_BY', 'User'), ('MERGED', 'User'),
          ('REVIEWER', 'User'), ('UPDATED_BY', 'User'))
      WHERE NOT _deleted
)
WHERE center_id IN (SELECT id FROM gl_merge_request FINAL
    PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {mr_ids:Array(Int64)}
    WHERE NOT _deleted
  )
ORDER BY center_id ASC, rel_kind ASC, nbr_kind ASC, nbr_id ASC, outgoing ASC
LIMIT {edges_limit:UInt64}
