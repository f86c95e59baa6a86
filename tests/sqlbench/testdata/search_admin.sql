-- search, admin: merged merge requests whose title contains a word, latest merged first.
-- The filters are not sorting-key columns, so they stay in WHERE, after FINAL.
SELECT id AS n0_id, iid AS n0_iid, title AS n0_title, merged_at AS n0_merged_at
FROM gl_merge_request FINAL
WHERE NOT _deleted AND state = {state:String} AND positionCaseInsensitiveUTF8(title, {title:String}) > 0
ORDER BY merged_at DESC NULLS LAST, id ASC
LIMIT {limit:UInt64}
