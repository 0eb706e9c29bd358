//! The served form of a [`Dataset`]: records converted once (so a page is
//! built by copying bytes), and the runs, scripted or created through the
//! API, with their lifecycle. [`Store::answer`] turns an admitted request
//! into the gate's [`ResourceAnswer`], with [`crate::records`]' one
//! record-serving semantics.

use super::dataset::{Dataset, RunScript};
use crate::gate::{Admitted, ResourceAnswer};
use crate::model::catalogue::ids;
use crate::records::{self, Record};
use crate::UnixMillis;
use serde_json::json;
use std::collections::BTreeMap;

/// The most runs one server creates through `createAgentRun`; past it the
/// server answers 503 (a bound on memory, not a rule of the API).
pub const MAX_CREATED_RUNS: usize = 100_000;

/// One run the server knows.
#[derive(Debug, Clone)]
struct RunEntry {
    /// The agent it was created for (`None`: scripted in the dataset).
    agent_id: Option<String>,
    /// When it was created (`None`: at the server's start).
    created_at: Option<UnixMillis>,
    script: RunScript,
}

/// What an admitted request's answer is, before the gate wraps it.
#[derive(Debug)]
pub(crate) enum Answer {
    /// The gate builds the response from this.
    Resource(ResourceAnswer),
    /// The server cannot take more (e.g. too many runs): a 503 with this sentence.
    Unavailable(String),
}

/// Tables, connections and runs, ready to serve.
#[derive(Debug, Clone, Default)]
pub(crate) struct Store {
    tables: BTreeMap<String, Vec<Record>>,
    connections: BTreeMap<String, BTreeMap<String, Vec<Record>>>,
    runs: BTreeMap<String, RunEntry>,
    created: usize,
    new_runs: RunScript,
}

fn to_records(values: Vec<serde_json::Value>) -> Vec<Record> {
    values.into_iter().map(Record::from_value).collect()
}

impl Store {
    /// The served form of `dataset`; runs created through the API follow `new_runs`.
    pub(crate) fn new(dataset: Dataset, new_runs: RunScript) -> Self {
        let tables = dataset
            .tables
            .into_iter()
            .map(|(id, values)| (id, to_records(values)))
            .collect();
        let connections = dataset
            .connections
            .into_iter()
            .map(|(id, entities)| {
                let entities = entities
                    .into_iter()
                    .map(|(entity, values)| (entity, to_records(values)))
                    .collect();
                (id, entities)
            })
            .collect();
        let runs = dataset
            .runs
            .into_iter()
            .map(|(id, script)| {
                let entry = RunEntry {
                    agent_id: None,
                    created_at: None,
                    script,
                };
                (id, entry)
            })
            .collect();
        Self {
            tables,
            connections,
            runs,
            created: 0,
            new_runs,
        }
    }

    /// The answer to an admitted request at `now` (`start`: the server's
    /// start, when the dataset's runs were created).
    pub(crate) fn answer(
        &mut self,
        admitted: &Admitted,
        start: UnixMillis,
        now: UnixMillis,
    ) -> Answer {
        let params = admitted.params();
        let found = |body: serde_json::Value| {
            Answer::Resource(ResourceAnswer::Found(
                serde_json::to_vec(&body).unwrap_or_default(),
            ))
        };
        match admitted.operation_id() {
            ids::LIST_TABLE_RECORDS => {
                let table = admitted.path_param("id").unwrap_or_default();
                Answer::Resource(match self.tables.get(table) {
                    None => ResourceAnswer::NotFound,
                    Some(records) => ResourceAnswer::Found(records::table_page(records, params)),
                })
            }
            ids::LIST_CONNECTION_RECORDS => {
                let connection = admitted.path_param("connection_id").unwrap_or_default();
                let Some(entities) = self.connections.get(connection) else {
                    return Answer::Resource(ResourceAnswer::NotFound);
                };
                let records = params
                    .entity_id()
                    .and_then(|entity| entities.get(entity))
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                Answer::Resource(match records::connection_page(records, params) {
                    Ok(page) => ResourceAnswer::Found(page),
                    Err(problem) => ResourceAnswer::Invalid(vec![problem]),
                })
            }
            ids::GET_RUN => {
                let run_id = admitted.path_param("run_id").unwrap_or_default();
                match self.runs.get(run_id) {
                    None => Answer::Resource(ResourceAnswer::NotFound),
                    Some(run) => found(run_json(run_id, run, start, now)),
                }
            }
            ids::CREATE_AGENT_RUN => {
                if self.created >= MAX_CREATED_RUNS {
                    return Answer::Unavailable(format!(
                        "The test server holds its most runs ({MAX_CREATED_RUNS}); start a new one."
                    ));
                }
                self.created = self.created.saturating_add(1);
                let run_id = format!("run_{}", self.created);
                let entry = RunEntry {
                    agent_id: admitted.path_param("agent_id").map(str::to_owned),
                    created_at: Some(now),
                    script: self.new_runs.clone(),
                };
                let body = run_json(&run_id, &entry, start, now);
                self.runs.insert(run_id, entry);
                found(body)
            }
            _ => Answer::Resource(ResourceAnswer::NotFound),
        }
    }
}

/// A run as the API shows it: `id`, `status`, and `agent_id` for runs
/// created through the API.
fn run_json(run_id: &str, run: &RunEntry, start: UnixMillis, now: UnixMillis) -> serde_json::Value {
    let created = run.created_at.unwrap_or(start);
    let status = run.script.status_after(now.saturating_since(created));
    match &run.agent_id {
        Some(agent_id) => json!({"id": run_id, "agent_id": agent_id, "status": status}),
        None => json!({"id": run_id, "status": status}),
    }
}
