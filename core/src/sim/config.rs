//! What a simulation runs: the gate's configuration, the data it serves,
//! the client instances and their tasks, and the failures to inject.

use super::dataset::Dataset;
use crate::client::{
    ClientConfig, ClientCredential, ConnectionPagerOptions, PollOptions, RequestSpec,
    TablePagerOptions,
};
use crate::gate::GateConfig;
use crate::model::operation::PathTemplate;
use crate::model::{Catalogue, CredentialPolicy, Envelope, InMemoryCredentials, Operation};
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// Operation id of the simulated run read.
pub const GET_RUN: &str = "getRun";

/// A caller-defined operation for run polling: `GET /runs/{run_id}`
/// answering `{"data": {"id": …, "status": …}}`.
pub fn run_operation() -> Operation {
    Operation {
        id: GET_RUN.into(),
        method: "GET".into(),
        path: PathTemplate::from_segments(vec![
            crate::model::operation::Segment::Literal("runs".into()),
            crate::model::operation::Segment::Param("run_id".into()),
        ]),
        credential: CredentialPolicy::ApiKeyOrOAuth { scope: None },
        envelope: Envelope::Data,
        params: vec![],
        extra_limits: vec![],
        stable_egress: false,
        needs_resource: true,
        deprecation: None,
        noun: Some("run".into()),
    }
}

/// The standard catalogue plus [`run_operation`] and
/// [`Catalogue::create_agent_run`].
pub fn catalogue() -> Catalogue {
    let mut catalogue = Catalogue::standard();
    // Both ids and routes are distinct from the standard ones.
    let _ = catalogue.add(run_operation());
    let _ = catalogue.add(Catalogue::create_agent_run());
    catalogue
}

/// One job of a simulated client; a client runs all its tasks concurrently.
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
#[derive(Debug, Clone, PartialEq)]
pub struct SimClientConfig {
    /// A name for reports.
    pub name: String,
    /// Its configuration (catalogue, credentials, policies).
    pub config: ClientConfig,
    /// The IP the gate sees.
    pub client_ip: String,
    /// How far its clock is ahead of the server's (negative: behind).
    pub clock_skew_ms: i64,
    /// When it starts, after the simulation's start.
    pub start_offset_ms: u64,
    /// Its tasks, run concurrently.
    pub tasks: Vec<SimTask>,
}

impl SimClientConfig {
    /// A client named `name` using `credential`, with the simulation's catalogue.
    pub fn new(name: impl Into<String>, credential: ClientCredential) -> Self {
        let config = ClientConfig {
            catalogue: catalogue(),
            ..ClientConfig::default()
        }
        .with_credential(credential);
        Self {
            name: name.into(),
            config,
            client_ip: "198.51.100.1".into(),
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

/// A whole simulation.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Seed of every random choice (faults, and each client's source).
    pub seed: u64,
    /// The virtual start instant (server clock).
    pub start_ms: UnixMillis,
    /// Time from send to response.
    pub latency_ms: u64,
    /// Time after which a lost response is reported as a timeout.
    pub timeout_ms: u64,
    /// The simulation stops (unfinished) after this much virtual time.
    pub max_virtual_ms: u64,
    /// Whether responses carry a `Date` header, as real servers add.
    pub date_header: bool,
    /// The gate's configuration.
    pub gate: GateConfig,
    /// The gate's credentials.
    pub credentials: InMemoryCredentials,
    /// The data the gate serves.
    pub dataset: Dataset,
    /// Failures to inject.
    pub faults: Vec<FaultRule>,
    /// The client instances.
    pub clients: Vec<SimClientConfig>,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            start_ms: 1_700_000_000_000,
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
        }
    }
}

impl SimConfig {
    /// Adds a client (builder form).
    pub fn client(mut self, client: SimClientConfig) -> Self {
        self.clients.push(client);
        self
    }
}
