-- The 1-hop question of bench/duckdb (traversal_1hop/scoped) at scale 100, as compiled at
-- 21dc632 (reads -show-sql, values written in), and hand forms of it; "scale:" forms answer
-- something else and are there to size a part. Run: go run . variants -dir DIR -in THIS -rounds 21
-- (docs/duckdb.md, "Where the 1-hop's time went").
-- variant compiled
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant edges_first
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM h0
INNER JOIN n0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant far_first
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n1
INNER JOIN h0 ON n1.id = h0.a
INNER JOIN n0 ON h0.b = n0.id
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant far_by_edge_ids_in
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE t.id IN (SELECT a FROM h0) AND (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant any_joins
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER ALL JOIN h0 ON h0.b = n0.id
INNER ANY JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant kind_constant
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, 'IN_PROJECT' AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant set: enable_join_runtime_filters
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, enable_join_runtime_filters = 0
-- variant set: use_skip_indexes
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, use_skip_indexes = 0
-- variant set: query_plan_optimize_lazy_materialization
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, query_plan_optimize_lazy_materialization = 0
-- variant set: join_algorithm
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, join_algorithm = 'hash', query_plan_join_swap_table = 'false'
-- variant set: use_uncompressed_cache
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, use_uncompressed_cache = 1
-- variant scale: no far title or iid
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, 0 AS iid, '' AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT n0.id AS n0_id, n0.full_path AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM n0
INNER JOIN h0 ON h0.b = n0.id
INNER JOIN n1 ON n1.id = h0.a
ORDER BY n0.id ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: no anchor read
WITH
  n0 AS (SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false),
  h0 AS (SELECT t.source_id AS a, t.target_id AS b, CAST(t.relationship_kind AS String) AS kind, true AS fwd, 1 AS depth FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false),
  n1 AS (SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened')
SELECT h0.b AS n0_id, '' AS n0_full_path, n1.id AS n1_id, n1.iid AS n1_iid, n1.title AS n1_title, h0.kind AS e0_kind, h0.fwd AS e0_fwd, h0.depth AS e0_depth
FROM h0
INNER JOIN n1 ON n1.id = h0.a
ORDER BY h0.b ASC, n1.id ASC
LIMIT 101
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: anchor and far scan, no edges
SELECT 0 AS side, t.id AS id, t.full_path AS s, 0 AS iid FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false
UNION ALL
SELECT 1 AS side, t.id AS id, t.title AS s, t.iid AS iid FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened'
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: anchor only
SELECT t.id AS id, t.full_path AS full_path FROM gl_project AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.id IN [1,2,3,4,5] WHERE t._deleted = false
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: far scan only
SELECT t.id AS id, t.iid AS iid, t.title AS title FROM gl_merge_request AS t FINAL PREWHERE (startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) WHERE t._deleted = false AND t.state = 'opened'
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: edges only, count
SELECT count() FROM gl_edge_by_target AS t FINAL PREWHERE (startsWith(t.traversal_path, '1/') OR startsWith(t.traversal_path, '2/36/') OR startsWith(t.traversal_path, '5/')) AND t.relationship_kind = 'IN_PROJECT' AND t.source_kind = 'MergeRequest' AND t.target_kind = 'Project' AND t.target_id IN [1,2,3,4,5] WHERE t._deleted = false
SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0
-- variant scale: SELECT 1
SELECT 1
