//! The simulated server's data: tables, connection records and runs, held
//! in memory and answered to the gate as [`ResourceAnswer`]s (raw JSON
//! arrays or objects). Records are served by [`crate::records`], the one
//! record-serving semantics every server on the gate shares.

use crate::gate::{Admitted, ResourceAnswer};
use crate::model::catalogue::ids;
use crate::model::ids::GET_RUN;
use crate::model::{ParamRole, ParamValue, Params};
use crate::records::{self, Record};
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A simulated run: `running` until `finishes_after_ms` after the
/// simulation's start, then `final_state`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
        .map(|id| json!({"id": id, "name": format!("row-{id:05}"), "score": id.wrapping_mul(7_919) % 1_000}))
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

    /// A table's records in the order a complete read must deliver them
    /// (the order [`records::table_order`] serves).
    pub fn table_in_order(
        &self,
        table: &str,
        order_by: Option<&str>,
        descending: bool,
    ) -> Vec<Value> {
        let records = to_records(
            self.tables
                .get(table)
                .map(Vec::as_slice)
                .unwrap_or_default(),
        );
        let mut params = Params::default();
        if let Some(column) = order_by {
            params.set(
                ParamRole::OrderBy,
                "order_by",
                ParamValue::Text(column.into()),
            );
        }
        if descending {
            params.set(
                ParamRole::Direction,
                "direction",
                ParamValue::Text("desc".into()),
            );
        }
        let order = records::table_order(&records, &params);
        order
            .into_iter()
            .map(|record| Value::Object(record.fields().clone()))
            .collect()
    }

    /// The answer to an admitted request at `now` (`start`: the simulation's start).
    pub fn answer(
        &self,
        admitted: &Admitted,
        start: UnixMillis,
        now: UnixMillis,
    ) -> ResourceAnswer {
        let params = admitted.params();
        match admitted.operation_id() {
            ids::LIST_TABLE_RECORDS => {
                let table = admitted.path_param("id").unwrap_or_default();
                match self.tables.get(table) {
                    None => ResourceAnswer::NotFound,
                    Some(values) => {
                        ResourceAnswer::Found(records::table_page(&to_records(values), params))
                    }
                }
            }
            ids::LIST_CONNECTION_RECORDS => {
                let connection = admitted.path_param("connection_id").unwrap_or_default();
                let Some(entities) = self.connections.get(connection) else {
                    return ResourceAnswer::NotFound;
                };
                let values = params
                    .entity_id()
                    .and_then(|entity| entities.get(entity))
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                match records::connection_page(&to_records(values), params) {
                    Ok(page) => ResourceAnswer::Found(page),
                    Err(problem) => ResourceAnswer::Invalid(vec![problem]),
                }
            }
            GET_RUN => {
                let run_id = admitted.path_param("run_id").unwrap_or_default();
                match self.runs.get(run_id) {
                    None => ResourceAnswer::NotFound,
                    Some(run) => {
                        let finished = now.saturating_since(start) >= run.finishes_after_ms;
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

fn to_records(values: &[Value]) -> Vec<Record> {
    values.iter().cloned().map(Record::from_value).collect()
}
