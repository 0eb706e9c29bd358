//! The pager across the boundary: [`Pager`] drives page requests through a
//! [`Client`] with `poll(client, now)` → [`Step`] and
//! `handle(client, outcome, now)` → [`PagerEvent`]; the caller sends.

use crate::client::{lock, Client, ClientRequest};
use crate::client_types::{ClientFailure, EgressMode, Outcome};
use crate::{time, AcdError};
use acd_core::client as core_client;
use std::sync::{Arc, Mutex};

/// Options of a table pager; `None` members take the core's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, uniffi::Record)]
pub struct TablePagerOptions {
    /// Records per page.
    pub page_size: Option<u64>,
    /// Column to order by (keyset paging when ascending).
    pub order_by: Option<String>,
    /// Descending order (paged by offset).
    pub descending: bool,
    /// Page by offset even when keyset paging is possible.
    pub offset_only: bool,
    /// Credential id; the client's first when `None`.
    pub credential: Option<String>,
}

/// Options of a connection-records pager; `None` members take defaults.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ConnectionPagerOptions {
    /// Records per page.
    pub page_size: Option<u64>,
    /// Filter JSON understood by the connection.
    pub filter: Option<String>,
    /// Stable egress.
    pub egress: EgressMode,
    /// Credential id (an API key); the client's first when `None`.
    pub credential: Option<String>,
}

/// What to do next.
#[derive(Debug, uniffi::Enum)]
pub enum Step {
    /// Send this request now, then hand its outcome to `handle`.
    Send {
        /// The request.
        request: Arc<ClientRequest>,
    },
    /// Call `poll` again at `at_ms` (Unix ms).
    WaitUntil {
        /// The instant.
        at_ms: i64,
    },
    /// A request is in flight: hand its outcome to `handle`.
    AwaitingResponse,
    /// Finished: nothing more to send.
    Done,
}

/// The boundary's step for a core step.
pub(crate) fn step_from(step: core_client::Step) -> Step {
    match step {
        core_client::Step::Send(request) => Step::Send {
            request: ClientRequest::new(*request),
        },
        core_client::Step::WaitUntil(at) => Step::WaitUntil {
            at_ms: time::from_core(at),
        },
        core_client::Step::AwaitingResponse => Step::AwaitingResponse,
        core_client::Step::Done => Step::Done,
    }
}

/// What one outcome did to the pager.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum PagerEvent {
    /// A page arrived (each record the raw JSON text); `last` when final.
    Page {
        /// The records.
        records: Vec<String>,
        /// Whether this was the final page.
        last: bool,
    },
    /// The page request will be retried at `at_ms`.
    Retrying {
        /// The instant.
        at_ms: i64,
        /// Why, as the core serialises it.
        cause_json: String,
    },
    /// Paging stopped with this error.
    Failed {
        /// The error.
        failure: ClientFailure,
    },
}

/// Pages through a table's or a connection's records.
#[derive(Debug, uniffi::Object)]
pub struct Pager {
    inner: Mutex<core_client::Pager>,
}

#[uniffi::export]
impl Pager {
    /// A pager over table `table`.
    #[uniffi::constructor]
    pub fn table(table: String, options: TablePagerOptions) -> Arc<Self> {
        let defaults = core_client::TablePagerOptions::default();
        let options = core_client::TablePagerOptions {
            page_size: options.page_size.unwrap_or(defaults.page_size),
            order_by: options.order_by,
            descending: options.descending,
            offset_only: options.offset_only,
            credential: options.credential,
        };
        Arc::new(Self {
            inner: Mutex::new(core_client::Pager::table(table, options)),
        })
    }

    /// A pager over the records of `entity` in connection `connection`.
    #[uniffi::constructor]
    pub fn connection(
        connection: String,
        entity: String,
        options: ConnectionPagerOptions,
    ) -> Arc<Self> {
        let defaults = core_client::ConnectionPagerOptions::default();
        let options = core_client::ConnectionPagerOptions {
            page_size: options.page_size.unwrap_or(defaults.page_size),
            filter: options.filter,
            egress: options.egress.into(),
            credential: options.credential,
        };
        Arc::new(Self {
            inner: Mutex::new(core_client::Pager::connection(connection, entity, options)),
        })
    }

    /// What to do next at `now_ms`; a request that cannot be built is an error.
    pub fn poll(&self, client: Arc<Client>, now_ms: i64) -> Result<Step, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut client = lock(&client.inner);
        Ok(step_from(lock(&self.inner).poll(&mut client, now)?))
    }

    /// Hands over how the page request ended; `None` when nothing was in flight.
    pub fn handle(
        &self,
        client: Arc<Client>,
        outcome: Outcome,
        now_ms: i64,
    ) -> Result<Option<PagerEvent>, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut client = lock(&client.inner);
        let outcome = outcome.into();
        let event = lock(&self.inner).handle(&mut client, &outcome, now);
        Ok(event.map(|event| match event {
            core_client::PagerEvent::Page { records, last } => PagerEvent::Page {
                records: records.iter().map(|r| r.get().to_owned()).collect(),
                last,
            },
            core_client::PagerEvent::Retrying { at, cause } => PagerEvent::Retrying {
                at_ms: time::from_core(at),
                cause_json: crate::client_types::to_json(&cause),
            },
            core_client::PagerEvent::Failed(error) => PagerEvent::Failed {
                failure: error.into(),
            },
        }))
    }

    /// Whether paging is over.
    pub fn is_finished(&self) -> bool {
        lock(&self.inner).is_finished()
    }

    /// Pages received so far.
    pub fn pages(&self) -> u64 {
        lock(&self.inner).pages()
    }
}
