//! Building the simulated client instances and their jobs from a
//! [`SimConfig`], and what each pager is expected to deliver.

use super::config::{SimConfig, SimTask};
use super::dataset::Dataset;
use super::engine::{Job, JobKind, JobState, SimClient};
use super::report::ClientSummary;
use crate::client::{Call, Client, ClientError, Pager, RandomSource, RunPoller, SplitMix64};
use crate::model::CredentialStore;
use serde_json::Value;

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

/// One [`SimClient`] per configured client, each with its jobs.
pub(super) fn build_clients(config: &SimConfig) -> Result<Vec<SimClient>, ClientError> {
    let mut clients = Vec::new();
    for (index, spec) in config.clients.iter().enumerate() {
        let mut client_config = spec.config.clone();
        let salt = (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        client_config.seed ^= SplitMix64::new(config.seed ^ salt).next_u64();
        let mut client = Client::new(client_config)?;
        let mut jobs = Vec::new();
        for task in &spec.tasks {
            let kinds: Vec<JobKind> = match task {
                SimTask::Table { table, options } => vec![JobKind::Pager {
                    pager: Pager::table(table.clone(), options.clone()),
                    expected: expected_records(&config.dataset, task),
                    delivered: Vec::new(),
                }],
                SimTask::Connection {
                    connection,
                    entity,
                    options,
                } => vec![JobKind::Pager {
                    pager: Pager::connection(connection.clone(), entity.clone(), options.clone()),
                    expected: expected_records(&config.dataset, task),
                    delivered: Vec::new(),
                }],
                SimTask::PollRun { run_id, options } => vec![JobKind::Poller(RunPoller::new(
                    crate::client::RequestSpec::new(super::config::GET_RUN)
                        .path("run_id", run_id.clone()),
                    options.clone(),
                ))],
                SimTask::Burst { spec, count } => (0..*count)
                    .map(|_| Call::build(&mut client, spec).map(JobKind::Single))
                    .collect::<Result<_, _>>()?,
            };
            jobs.extend(kinds.into_iter().map(|kind| Job {
                kind,
                state: JobState::Running,
                generation: 0,
                planned_at: 0,
            }));
        }
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
            skew: spec.clock_skew_ms,
            ip: spec.client_ip.clone(),
            credential_ids,
            users,
            summary: ClientSummary {
                name: spec.name.clone(),
                ..ClientSummary::default()
            },
        });
    }
    Ok(clients)
}
