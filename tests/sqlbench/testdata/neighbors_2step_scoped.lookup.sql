-- neighbors in two steps, scoped, step 2: which of the neighbors step 1 reached are live and
-- readable, one arm per kind, each bounded by the ids of that kind as {ids_<Kind>:Array(Int64)}.
-- The harness keeps only the arms of the kinds step 1 reached (the arms are separated by lines
-- "UNION ALL"), as the compiled lookup does.
SELECT 'Label' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_label FINAL
PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN {ids_Label:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Milestone' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_milestone FINAL
PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN {ids_Milestone:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Note' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_note FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_Note:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Pipeline' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_pipeline FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_Pipeline:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Project' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_project FINAL
PREWHERE (startsWith(traversal_path, {scope10_1:String}) OR startsWith(traversal_path, {scope10_2:String}) OR startsWith(traversal_path, {scope10_3:String})) AND id IN {ids_Project:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Vulnerability' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_vulnerability FINAL
PREWHERE startsWith(traversal_path, {scope25_1:String}) AND id IN {ids_Vulnerability:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'WorkItem' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_work_item FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_WorkItem:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Commit' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_commit FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_Commit:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Deployment' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_deployment FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_Deployment:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'Environment' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_environment FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_Environment:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'MergeRequestDiff' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_merge_request_diff FINAL
PREWHERE (startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})) AND id IN {ids_MergeRequestDiff:Array(Int64)}
WHERE NOT _deleted
UNION ALL
SELECT 'User' AS kind, id, CAST([] AS Array(Nullable(String))) AS props, '' AS tp FROM gl_user FINAL
PREWHERE id IN {ids_User:Array(Int64)}
WHERE NOT _deleted
