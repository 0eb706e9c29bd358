//! The simulated server's data: tables, connection records and runs, held
//! in memory and answered to the gate as [`ResourceAnswer`]s (raw JSON
//! arrays or objects), with the read semantics of the spec: `order_by`,
//! direction, `after` ("greater than", only with `order_by`), offset, limit.

use super::config::GET_RUN;
use crate::gate::{Admitted, ResourceAnswer};
use crate::model::catalogue::ids;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// A simulated run: `running` until `finishes_after_ms` after the
/// simulation's start, then `final_state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimRun {
    /// When it finishes, in ms after the start.
    pub finishes_after_ms: u64,
    /// Its terminal state, e.g. `succeeded`.
    pub final_state: String,
}

/// Everything the simulated server can answer (in JSON every member is
/// optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dataset {
    /// Table id → records (JSON objects).
    pub tables: BTreeMap<String, Vec<Value>>,
    /// Connection id → entity → records.
    pub connections: BTreeMap<String, BTreeMap<String, Vec<Value>>>,
    /// Run id → its script.
    pub runs: BTreeMap<String, SimRun>,
}

/// `count` records `{"id": i, "name": "row-i", "score": …}`, ids from 1.
pub fn sample_records(count: u64) -> Vec<Value> {
    (1..=count)
        .map(|id| json!({"id": id, "name": format!("row-{id:05}"), "score": (id * 7_919) % 1_000}))
        .collect()
}

impl Dataset {
    /// Adds a table of [`sample_records`] (builder form).
    pub fn with_table(mut self, table: &str, count: u64) -> Self {
        self.tables.insert(table.into(), sample_records(count));
        self
    }

    /// Adds a connection entity of [`sample_records`] (builder form).
    pub fn with_connection(mut self, connection: &str, entity: &str, count: u64) -> Self {
        self.connections
            .entry(connection.into())
            .or_default()
            .insert(entity.into(), sample_records(count));
        self
    }

    /// Adds a run (builder form).
    pub fn with_run(mut self, run_id: &str, finishes_after_ms: u64, final_state: &str) -> Self {
        self.runs.insert(
            run_id.into(),
            SimRun {
                finishes_after_ms,
                final_state: final_state.into(),
            },
        );
        self
    }

    /// A table's records in the order a complete read must deliver them.
    pub fn table_in_order(
        &self,
        table: &str,
        order_by: Option<&str>,
        descending: bool,
    ) -> Vec<Value> {
        let mut records = self.tables.get(table).cloned().unwrap_or_default();
        if let Some(column) = order_by {
            records.sort_by(|a, b| compare(&a[column], &b[column]));
            if descending {
                records.reverse();
            }
        }
        records
    }

    /// The answer to an admitted request at `now` (`start`: the simulation's start).
    pub fn answer(
        &self,
        admitted: &Admitted,
        start: UnixMillis,
        now: UnixMillis,
    ) -> ResourceAnswer {
        let params = admitted.params();
        let page = |records: Vec<Value>| {
            let offset = usize::try_from(params.offset().unwrap_or(0)).unwrap_or(usize::MAX);
            let limit = usize::try_from(params.limit().unwrap_or(100)).unwrap_or(usize::MAX);
            let slice: Vec<Value> = records.into_iter().skip(offset).take(limit).collect();
            ResourceAnswer::Found(serde_json::to_vec(&slice).unwrap_or_default())
        };
        match admitted.operation_id() {
            ids::LIST_TABLE_RECORDS => {
                let table = admitted.path_param("id").unwrap_or_default();
                if !self.tables.contains_key(table) {
                    return ResourceAnswer::NotFound;
                }
                let order_by = params.order_by();
                let mut records = self.table_in_order(table, order_by, params.descending());
                if let (Some(column), Some(after)) = (order_by, params.after()) {
                    records.retain(|record| greater_than(&record[column], after));
                }
                page(records)
            }
            ids::LIST_CONNECTION_RECORDS => {
                let connection = admitted.path_param("connection_id").unwrap_or_default();
                match self.connections.get(connection) {
                    None => ResourceAnswer::NotFound,
                    Some(entities) => page(
                        params
                            .entity_id()
                            .and_then(|entity| entities.get(entity))
                            .cloned()
                            .unwrap_or_default(),
                    ),
                }
            }
            GET_RUN => {
                let run_id = admitted.path_param("run_id").unwrap_or_default();
                match self.runs.get(run_id) {
                    None => ResourceAnswer::NotFound,
                    Some(run) => {
                        let finished = now.saturating_sub(start) >= run.finishes_after_ms;
                        let status = if finished {
                            run.final_state.as_str()
                        } else {
                            "running"
                        };
                        ResourceAnswer::Found(
                            serde_json::to_vec(&json!({"id": run_id, "status": status}))
                                .unwrap_or_default(),
                        )
                    }
                }
            }
            "createAgentRun" => ResourceAnswer::Found(
                serde_json::to_vec(&json!({"id": "run-created", "status": "queued"}))
                    .unwrap_or_default(),
            ),
            _ => ResourceAnswer::NotFound,
        }
    }
}

/// Orders JSON values: numbers numerically, strings by bytes, other kinds after.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .partial_cmp(&y.as_f64())
            .unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Number(_), _) => Ordering::Less,
        (_, Value::Number(_)) => Ordering::Greater,
        (Value::String(_), _) => Ordering::Less,
        (_, Value::String(_)) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// Whether `value` is greater than the `after` text (numerically for numbers).
fn greater_than(value: &Value, after: &str) -> bool {
    match value {
        Value::Number(number) => match (number.as_f64(), after.parse::<f64>()) {
            (Some(x), Ok(y)) => x > y,
            _ => false,
        },
        Value::String(text) => text.as_str() > after,
        _ => false,
    }
}
