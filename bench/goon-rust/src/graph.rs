// The response types Orbit's goon/encode.rs reads (crate::graph in the
// harness), written for this harness from the shape of graphwire's raw JSON
// response (config/schemas/query_response.json).

use serde_json::{Map, Value};

pub struct GraphResponse {
    pub query_type: String,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    pub columns: Option<Vec<ColumnDescriptor>>,
    pub group_columns: Option<Vec<GroupColumnDescriptor>>,
    pub rows: Option<Vec<Map<String, Value>>>,
    pub pagination: Option<PaginationResponse>,
}

pub struct ColumnDescriptor {
    pub name: String,
    pub function: String,
    pub target: Option<String>,
    pub property: Option<String>,
}

pub struct GroupColumnDescriptor {
    pub name: String,
    pub kind: String,
    pub property: Option<String>,
    pub entity: Option<String>,
}

pub struct PaginationResponse {
    pub has_more: bool,
    pub truncated: bool,
    pub next_cursor: Option<String>,
}

#[derive(Clone)]
pub struct GraphNode {
    pub entity_type: String,
    pub id: i64,
    pub properties: Map<String, Value>,
}

pub struct GraphEdge {
    pub from: String,
    pub from_id: i64,
    pub to: String,
    pub to_id: i64,
    pub edge_type: String,
    pub depth: Option<i64>,
    pub path_id: Option<usize>,
    pub step: Option<usize>,
}

fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn opt_s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

fn id(v: &Value, k: &str) -> i64 {
    s(v, k).parse().expect("id is a decimal int64 string")
}

/// from_json reads one raw GraphResponse document.
pub fn from_json(doc: &Value) -> GraphResponse {
    let nodes = doc["nodes"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|n| {
                    let mut properties = n.as_object().cloned().unwrap_or_default();
                    properties.remove("type");
                    properties.remove("id");
                    GraphNode { entity_type: s(n, "type"), id: id(n, "id"), properties }
                })
                .collect()
        })
        .unwrap_or_default();
    let edges = doc["edges"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| GraphEdge {
                    from: s(e, "from"),
                    from_id: id(e, "from_id"),
                    to: s(e, "to"),
                    to_id: id(e, "to_id"),
                    edge_type: s(e, "type"),
                    depth: e.get("depth").and_then(Value::as_i64),
                    path_id: e.get("path_id").and_then(Value::as_u64).map(|x| x as usize),
                    step: e.get("step").and_then(Value::as_u64).map(|x| x as usize),
                })
                .collect()
        })
        .unwrap_or_default();
    let columns = doc.get("columns").and_then(Value::as_array).map(|a| {
        a.iter()
            .map(|c| ColumnDescriptor {
                name: s(c, "name"),
                function: s(c, "function"),
                target: opt_s(c, "target"),
                property: opt_s(c, "property"),
            })
            .collect()
    });
    let group_columns = doc.get("group_columns").and_then(Value::as_array).map(|a| {
        a.iter()
            .map(|g| GroupColumnDescriptor {
                name: s(g, "name"),
                kind: s(g, "kind"),
                property: opt_s(g, "property"),
                entity: opt_s(g, "entity"),
            })
            .collect()
    });
    let rows = doc.get("rows").and_then(Value::as_array).map(|a| {
        a.iter().map(|r| r.as_object().cloned().unwrap_or_default()).collect()
    });
    let pagination = doc.get("pagination").filter(|p| p.is_object()).map(|p| PaginationResponse {
        has_more: p.get("has_more").and_then(Value::as_bool).unwrap_or(false),
        truncated: p.get("truncated").and_then(Value::as_bool).unwrap_or(false),
        next_cursor: opt_s(p, "next_cursor"),
    });
    GraphResponse { query_type: s(doc, "query_type"), nodes, edges, columns, group_columns, rows, pagination }
}
