//! What a simulation runs: the gate's configuration, the data it serves,
//! the client instances and their tasks, and the failures to inject.

use super::SimError;
use crate::client::{
    ClientConfig, ClientCredential, ConnectionPagerOptions, PollOptions, RequestSpec,
    TablePagerOptions,
};
use crate::gate::GateConfig;
use crate::model::{Catalogue, InMemoryCredentials};
use crate::testing::config::credentials_from_json;
use crate::testing::Dataset;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// The clients' catalogue: the standard one plus [`Catalogue::get_run`] and
/// [`Catalogue::create_agent_run`].
pub fn catalogue() -> Catalogue {
    Catalogue::for_clients()
}

/// One job of a simulated client; a client runs all its tasks concurrently.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SimTask {
    /// Page through a table.
    Table {
        /// The table id.
        table: String,
        /// Pager options.
        options: TablePagerOptions,
    },
    /// Page through a connection's records of one entity.
    Connection {
        /// The connection id.
        connection: String,
        /// The entity.
        entity: String,
        /// Pager options.
        options: ConnectionPagerOptions,
    },
    /// Poll a run until a terminal state.
    PollRun {
        /// The run id.
        run_id: String,
        /// Poller options.
        options: PollOptions,
    },
    /// `count` independent calls of `spec`, all started at once.
    Burst {
        /// What to call.
        spec: RequestSpec,
        /// How many calls.
        count: u32,
    },
}

/// One simulated client instance.
///
/// In JSON every member but `name` is optional; a `config` given there is
/// used as is (its default catalogue has `getRun`, which run polling uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimClientConfig {
    /// A name for reports.
    pub name: String,
    /// Its configuration (catalogue, credentials, policies).
    #[serde(default = "default_client_config")]
    pub config: ClientConfig,
    /// The IP the gate sees.
    #[serde(default = "default_client_ip")]
    pub client_ip: String,
    /// How far its clock is ahead of the server's (negative: behind).
    #[serde(default)]
    pub clock_skew_ms: i64,
    /// When it starts, after the simulation's start.
    #[serde(default)]
    pub start_offset_ms: u64,
    /// Its tasks, run concurrently.
    #[serde(default)]
    pub tasks: Vec<SimTask>,
}

fn default_client_config() -> ClientConfig {
    ClientConfig {
        catalogue: catalogue(),
        ..ClientConfig::default()
    }
}

fn default_client_ip() -> String {
    "198.51.100.1".into()
}

impl SimClientConfig {
    /// A client named `name` using `credential`, with the simulation's catalogue.
    pub fn new(name: impl Into<String>, credential: ClientCredential) -> Self {
        Self {
            name: name.into(),
            config: default_client_config().with_credential(credential),
            client_ip: default_client_ip(),
            clock_skew_ms: 0,
            start_offset_ms: 0,
            tasks: Vec::new(),
        }
    }

    /// Adds a task (builder form).
    pub fn task(mut self, task: SimTask) -> Self {
        self.tasks.push(task);
        self
    }
}

/// A kind of injected failure.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FaultKind {
    /// The backend fails after the gate admitted the request (quota is
    /// consumed; the rate-limit headers are kept).
    ServerError {
        /// The status, e.g. 503.
        status: u16,
    },
    /// The connection fails; the request never reaches the gate.
    Connect,
    /// The gate processes the request but the response is lost; the client
    /// sees a timeout after [`SimConfig::timeout_ms`].
    Timeout,
}

/// When and how often to inject a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRule {
    /// Start, in ms after the simulation's start (inclusive).
    pub from_ms: u64,
    /// End, in ms after the simulation's start (exclusive).
    pub until_ms: u64,
    /// Chance per request, in thousandths (1000 = every request).
    pub per_mille: u32,
    /// The failure.
    pub kind: FaultKind,
    /// Only this client's requests, or everyone's.
    pub client: Option<String>,
}

/// A whole simulation. With serde (JSON in, for [`super::run_json`]):
/// every member is optional and takes the default below; `credentials` is a
/// list of `{secret, id, kind, user, scopes, expires_at}` (the demo
/// credentials when absent) and is never serialised.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Seed of every random choice (faults, and each client's source).
    pub seed: u64,
    /// The virtual start instant (server clock).
    pub start_ms: UnixMillis,
    /// Time from send to response.
    pub latency_ms: u64,
    /// Time after which a lost response is reported as a timeout.
    pub timeout_ms: u64,
    /// The simulation stops (unfinished) after this much virtual time, or
    /// when its clock reaches `u64::MAX`, where time cannot advance.
    pub max_virtual_ms: u64,
    /// Whether responses carry a `Date` header, as real servers add.
    pub date_header: bool,
    /// The gate's configuration.
    pub gate: GateConfig,
    /// The gate's credentials.
    #[serde(skip_serializing, deserialize_with = "credentials_from_json")]
    pub credentials: InMemoryCredentials,
    /// The data the gate serves.
    pub dataset: Dataset,
    /// Failures to inject.
    pub faults: Vec<FaultRule>,
    /// The client instances.
    pub clients: Vec<SimClientConfig>,
    /// Every client runs without proactive throttling (it only honours
    /// `Retry-After`): the naive baseline.
    pub naive_clients: bool,
    /// Also run the same simulation with naive clients and put its figures
    /// in [`super::SimReport::baseline`], so the throttle's benefit is a
    /// measured figure. Default `true`.
    pub naive_baseline: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            start_ms: UnixMillis::new(1_700_000_000_000),
            latency_ms: 20,
            timeout_ms: 5_000,
            max_virtual_ms: 3_600_000,
            date_header: true,
            gate: GateConfig {
                catalogue: catalogue(),
                ..GateConfig::default()
            },
            credentials: crate::gate::demo::credentials(),
            dataset: Dataset::default(),
            faults: Vec::new(),
            clients: Vec::new(),
            naive_clients: false,
            naive_baseline: true,
        }
    }
}

/// The most calls one simulation starts (every task of every client; a
/// `burst` counts its `count`), so a configuration cannot exhaust memory.
pub const MAX_SIM_CALLS: u64 = 100_000;

/// The most records the simulation's pagers may have to check, summed over
/// every table and connection task (each keeps the ids it must deliver).
pub const MAX_SIM_EXPECTED_RECORDS: u64 = 10_000_000;

impl SimConfig {
    /// Adds a client (builder form).
    pub fn client(mut self, client: SimClientConfig) -> Self {
        self.clients.push(client);
        self
    }

    /// Checks the sizes that would cost memory before anything is built:
    /// at most [`MAX_SIM_CALLS`] calls and [`MAX_SIM_EXPECTED_RECORDS`]
    /// records to check, naming the first member that passes a bound.
    pub fn check_sizes(&self) -> Result<(), SimError> {
        let (mut calls, mut records) = (0u64, 0u64);
        for (index, client) in self.clients.iter().enumerate() {
            for (position, task) in client.tasks.iter().enumerate() {
                let (more_calls, more_records) = match task {
                    SimTask::Burst { count, .. } => (u64::from(*count), 0),
                    SimTask::Table { table, .. } => {
                        (1, self.dataset.tables.get(table).map_or(0, Vec::len))
                    }
                    SimTask::Connection {
                        connection, entity, ..
                    } => (
                        1,
                        self.dataset
                            .connections
                            .get(connection)
                            .and_then(|entities| entities.get(entity))
                            .map_or(0, Vec::len),
                    ),
                    _ => (1, 0),
                };
                calls = calls.saturating_add(more_calls);
                records = records.saturating_add(u64::try_from(more_records).unwrap_or(u64::MAX));
                let field = || format!("clients[{index}].tasks[{position}]");
                if calls > MAX_SIM_CALLS {
                    return Err(SimError::Config {
                        field: field(),
                        problem: format!(
                            "the simulation would start {calls} calls or more; at most \
                             {MAX_SIM_CALLS} are allowed (lower a burst's count or the number \
                             of tasks)"
                        ),
                    });
                }
                if records > MAX_SIM_EXPECTED_RECORDS {
                    return Err(SimError::Config {
                        field: field(),
                        problem: format!(
                            "the pagers would check {records} records or more; at most \
                             {MAX_SIM_EXPECTED_RECORDS} are allowed (use smaller tables or \
                             fewer paging tasks)"
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}
