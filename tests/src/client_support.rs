//! Helpers shared by the client tests: a seeded driver with the simulation's
//! catalogue, canned outcomes, event draining, and simulation shorthands.

use acd_core::client::{
    CallId, Client, ClientConfig, ClientCredential, Entropy, Event, HttpResponse, Outcome,
    TablePagerOptions, Transmit,
};
use acd_core::gate::demo::ADA_KEY;
use acd_core::model::Catalogue;
use acd_core::sim::{self, SimConfig, SimReport, SimTask, TraceKind};

/// The instant the driver tests start at (Unix ms).
pub const NOW: u64 = 1_700_000_000_000;

/// Ada's API key as the client's `main` credential.
pub fn ada() -> ClientCredential {
    ClientCredential::api_key("main", ADA_KEY, "ada")
}

/// Seed 3, Ada's key, and a catalogue with `getRun` and `createAgentRun`.
pub fn config() -> ClientConfig {
    let mut config = ClientConfig {
        seed: Some(3),
        ..ClientConfig::default()
    }
    .with_credential(ada());
    config.catalogue = sim::catalogue();
    config
}

/// A driver with [`config`]; `None` if the configuration were refused.
pub fn client() -> Option<Client> {
    Client::new(config(), Entropy::from_seed(0)).ok()
}

/// A response with no headers.
pub fn respond(status: u16, body: &str) -> Outcome {
    Outcome::Response(HttpResponse::new(status, body))
}

/// Every event waiting in `client`, in order.
pub fn events(client: &mut Client) -> Vec<(CallId, Event)> {
    std::iter::from_fn(|| client.poll_event()).collect()
}

/// The next request to send at `now`, if any.
pub fn send(client: &mut Client, now: u64) -> Option<Transmit> {
    client.poll_transmit(now)
}

/// A table-pager task.
pub fn table(name: &str, options: TablePagerOptions) -> SimTask {
    SimTask::Table {
        table: name.into(),
        options,
    }
}

/// Table-pager options with this page size.
pub fn page_size(size: u64) -> TablePagerOptions {
    TablePagerOptions {
        page_size: size,
        ..TablePagerOptions::default()
    }
}

/// Runs a simulation and prints its summary under `name`; `None` when the
/// configuration is refused.
pub fn run(name: &str, config: SimConfig) -> Option<SimReport> {
    let report = sim::run(config).ok()?;
    println!("{name}: {}", report.summary());
    Some(report)
}

/// `(job, records, last)` of every page client `client` received.
pub fn pages(report: &SimReport, client: usize) -> Vec<(usize, usize, bool)> {
    report
        .trace
        .iter()
        .filter(|event| event.client == client)
        .filter_map(|event| match event.what {
            TraceKind::Page { records, last } => Some((event.job, records, last)),
            _ => None,
        })
        .collect()
}

/// Whether `Catalogue::create_agent_run` is in `config`'s catalogue.
pub fn has_create_agent_run(config: &ClientConfig) -> bool {
    config
        .catalogue
        .get(&Catalogue::create_agent_run().id)
        .is_some()
}
