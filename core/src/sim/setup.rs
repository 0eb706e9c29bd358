//! Building the simulated client instances and their calls from a
//! [`SimConfig`], and what each pager is expected to deliver.

use super::config::{SimConfig, SimTask};
use super::engine::{Job, JobState, SimClient};
use super::report::ClientSummary;
use super::SimError;
use crate::client::{CallId, Client, ClientError, Entropy, RandomSource, SplitMix64};
use crate::model::CredentialStore;
use crate::testing::Dataset;
use crate::UnixMillis;
use serde_json::Value;
use std::collections::BTreeMap;

fn ids(records: &[Value]) -> Vec<Value> {
    records.iter().map(|record| record["id"].clone()).collect()
}

pub(super) fn expected_records(dataset: &Dataset, task: &SimTask) -> Vec<Value> {
    match task {
        SimTask::Table { table, options } => {
            ids(&dataset.table_in_order(table, options.order_by.as_deref(), options.descending))
        }
        SimTask::Connection {
            connection, entity, ..
        } => dataset
            .connections
            .get(connection)
            .and_then(|entities| entities.get(entity))
            .map(|records| ids(records))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn job(call: Option<CallId>, expected: Option<Vec<Value>>) -> Job {
    Job {
        call,
        state: JobState::Running,
        expected,
        delivered: Vec::new(),
        planned_at: UnixMillis::ZERO,
        attempt: 0,
    }
}

/// A call as started, and the record ids a pager must deliver.
type Started = (Result<CallId, ClientError>, Option<Vec<Value>>);

/// Jobs whose call could not even start: (client, job, error sentence).
pub(super) type FailedAtStart = Vec<(usize, usize, String)>;

/// One [`SimClient`] per configured client, each with its calls started.
pub(super) fn build_clients(
    config: &SimConfig,
) -> Result<(Vec<SimClient>, FailedAtStart), SimError> {
    let mut clients = Vec::new();
    let mut failed = Vec::new();
    for (index, spec) in config.clients.iter().enumerate() {
        let mut client_config = spec.config.clone();
        let salt = (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let derived = SplitMix64::new(config.seed ^ salt).next_u64();
        client_config.seed = Some(client_config.seed.unwrap_or(0) ^ derived);
        if config.naive_clients {
            client_config.proactive_throttle = false;
        }
        let mut client = Client::new(client_config, Entropy::from_seed(derived))?;
        let mut jobs = Vec::new();
        for task in &spec.tasks {
            let started: Vec<Started> = match task {
                SimTask::Table { table, options } => vec![(
                    client.start_table_pager(table, options.clone()),
                    Some(expected_records(&config.dataset, task)),
                )],
                SimTask::Connection {
                    connection,
                    entity,
                    options,
                } => vec![(
                    client.start_connection_pager(connection, entity, options.clone()),
                    Some(expected_records(&config.dataset, task)),
                )],
                SimTask::PollRun { run_id, options } => {
                    vec![(client.start_run_poller(run_id, options.clone()), None)]
                }
                SimTask::Burst { spec, count } => (0..*count)
                    .map(|_| client.start(spec.clone()).map(|id| (Ok(id), None)))
                    .collect::<Result<_, ClientError>>()?,
            };
            for (result, expected) in started {
                match result {
                    Ok(id) => jobs.push(job(Some(id), expected)),
                    Err(error) => {
                        failed.push((index, jobs.len(), error.to_string()));
                        jobs.push(job(None, expected));
                    }
                }
            }
        }
        let by_call: BTreeMap<CallId, usize> = jobs
            .iter()
            .enumerate()
            .filter_map(|(position, job)| job.call.map(|id| (id, position)))
            .collect();
        let mut credential_ids = Vec::new();
        let mut users = Vec::new();
        for credential in &spec.config.credentials {
            match config.credentials.lookup(credential.secret.expose()) {
                Some(record) => {
                    credential_ids.push(record.id);
                    users.push(record.user);
                }
                None => {
                    credential_ids.push(credential.id.clone());
                    users.push(credential.user.clone());
                }
            }
        }
        clients.push(SimClient {
            client,
            jobs,
            by_call,
            skew: spec.clock_skew_ms,
            ip: spec.client_ip.clone(),
            credential_ids,
            users,
            summary: ClientSummary {
                name: spec.name.clone(),
                ..ClientSummary::default()
            },
            generation: 0,
        });
    }
    Ok((clients, failed))
}
