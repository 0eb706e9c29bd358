//! The data a test server answers with: tables, connection records and
//! scripted runs, held in memory as JSON values. In JSON a table (or a
//! connection entity) is either its records or a count of
//! [`sample_records`]. Serving them is [`super::store`]'s job.

use crate::model::{ParamRole, ParamValue, Params};
use crate::records::{self, Record};
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The most sample records one table or entity may ask for by count (a
/// count is a size, so it is bounded before anything is allocated).
pub const MAX_SAMPLE_RECORDS: u64 = 1_000_000;

/// The states of a scripted run, in order: `queued` until `queued_ms` after
/// its creation, then `running` until `finishes_after_ms`, then
/// `final_state` for ever.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunScript {
    /// How long it stays `queued` after its creation (default 0: it starts
    /// `running`).
    #[serde(default)]
    pub queued_ms: u64,
    /// When it reaches its final state, in ms after its creation.
    pub finishes_after_ms: u64,
    /// Its final state, e.g. `succeeded`.
    pub final_state: String,
}

impl RunScript {
    /// The state `elapsed_ms` after the run's creation.
    pub fn status_after(&self, elapsed_ms: u64) -> &str {
        if elapsed_ms < self.queued_ms {
            "queued"
        } else if elapsed_ms < self.finishes_after_ms {
            "running"
        } else {
            &self.final_state
        }
    }
}

impl Default for RunScript {
    /// Runs created through the API: `queued` for 1 s, `running` until 5 s,
    /// then `succeeded`.
    fn default() -> Self {
        Self {
            queued_ms: 1_000,
            finishes_after_ms: 5_000,
            final_state: "succeeded".into(),
        }
    }
}

/// Connection id → entity → records.
pub type Connections = BTreeMap<String, BTreeMap<String, Vec<Value>>>;

/// Everything a test server can answer (in JSON every member is optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Dataset {
    /// Table id → records (JSON objects). In JSON, a count instead of the
    /// records serves that many [`sample_records`].
    #[serde(deserialize_with = "tables_from_json")]
    pub tables: BTreeMap<String, Vec<Value>>,
    /// Connection id → entity → records (or, in JSON, a count).
    #[serde(deserialize_with = "connections_from_json")]
    pub connections: Connections,
    /// Run id → its script; these runs exist from the server's start.
    pub runs: BTreeMap<String, RunScript>,
}

/// `count` records `{"id": i, "name": "row-i", "score": …}`, ids from 1.
pub fn sample_records(count: u64) -> Vec<Value> {
    (1..=count)
        .map(|id| json!({"id": id, "name": format!("row-{id:05}"), "score": id.wrapping_mul(7_919) % 1_000}))
        .collect()
}

/// Records as given in JSON: an array of them, or a count of samples.
struct Rows(Vec<Value>);

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RowsVisitor;
        impl<'de> Visitor<'de> for RowsVisitor {
            type Value = Rows;
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    formatter,
                    "an array of records, or a count of sample records from 0 to {MAX_SAMPLE_RECORDS}"
                )
            }
            fn visit_u64<E: de::Error>(self, count: u64) -> Result<Rows, E> {
                if count > MAX_SAMPLE_RECORDS {
                    return Err(E::custom(format!(
                        "a count of {count} sample records is more than the {MAX_SAMPLE_RECORDS} allowed; give fewer"
                    )));
                }
                Ok(Rows(sample_records(count)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4_096));
                while let Some(row) = seq.next_element::<Value>()? {
                    rows.push(row);
                }
                Ok(Rows(rows))
            }
        }
        deserializer.deserialize_any(RowsVisitor)
    }
}

/// Tables in JSON: id → records or a count.
pub(crate) fn tables_from_json<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<BTreeMap<String, Vec<Value>>, D::Error> {
    let tables = BTreeMap::<String, Rows>::deserialize(deserializer)?;
    Ok(tables.into_iter().map(|(id, rows)| (id, rows.0)).collect())
}

/// Connections in JSON: id → entity → records or a count.
pub(crate) fn connections_from_json<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Connections, D::Error> {
    let connections = BTreeMap::<String, BTreeMap<String, Rows>>::deserialize(deserializer)?;
    Ok(connections
        .into_iter()
        .map(|(id, entities)| {
            let entities = entities
                .into_iter()
                .map(|(entity, rows)| (entity, rows.0))
                .collect();
            (id, entities)
        })
        .collect())
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

    /// Adds a run that is `running` from the server's start until
    /// `finishes_after_ms`, then `final_state` (builder form).
    pub fn with_run(mut self, run_id: &str, finishes_after_ms: u64, final_state: &str) -> Self {
        self.runs.insert(
            run_id.into(),
            RunScript {
                queued_ms: 0,
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
        let records: Vec<Record> = self
            .tables
            .get(table)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .cloned()
            .map(Record::from_value)
            .collect();
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_records_or_a_count_of_samples() {
        let dataset: Dataset = serde_json::from_value(json!({
            "tables": {"given": [{"id": "a"}], "sampled": 2},
            "connections": {"crm": {"contacts": 1}}
        }))
        .unwrap();
        assert_eq!(dataset.tables["given"], vec![json!({"id": "a"})]);
        assert_eq!(
            dataset.tables["sampled"],
            vec![
                json!({"id": 1, "name": "row-00001", "score": 919}),
                json!({"id": 2, "name": "row-00002", "score": 838}),
            ]
        );
        assert_eq!(
            dataset.connections["crm"]["contacts"],
            vec![json!({"id": 1, "name": "row-00001", "score": 919})]
        );
    }

    #[test]
    fn a_huge_count_or_a_wrong_type_is_refused_with_a_sentence() {
        let error = serde_json::from_value::<Dataset>(json!({"tables": {"t": 1_000_001}}))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("a count of 1000001 sample records is more than the 1000000 allowed"),
            "{error}"
        );
        let error = serde_json::from_value::<Dataset>(json!({"tables": {"t": "many"}}))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("an array of records, or a count of sample records"),
            "{error}"
        );
    }

    #[test]
    fn a_run_is_queued_then_running_then_final() {
        let script = RunScript {
            queued_ms: 100,
            finishes_after_ms: 300,
            final_state: "failed".into(),
        };
        assert_eq!(script.status_after(0), "queued");
        assert_eq!(script.status_after(99), "queued");
        assert_eq!(script.status_after(100), "running");
        assert_eq!(script.status_after(299), "running");
        assert_eq!(script.status_after(300), "failed");
    }
}
