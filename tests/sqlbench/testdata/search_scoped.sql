-- search, scoped: as search_admin.sql, inside the prefixes admitted at the merge request floor
-- (20). The prefixes are on the sorting key, so PREWHERE narrows the rows before FINAL.
SELECT id AS n0_id, iid AS n0_iid, title AS n0_title, merged_at AS n0_merged_at
FROM gl_merge_request FINAL
PREWHERE startsWith(traversal_path, {scope20_1:String}) OR startsWith(traversal_path, {scope20_2:String})
WHERE NOT _deleted AND state = {state:String} AND positionCaseInsensitiveUTF8(title, {title:String}) > 0
ORDER BY merged_at DESC NULLS LAST, id ASC
LIMIT {limit:UInt64}
