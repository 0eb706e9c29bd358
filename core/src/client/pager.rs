//! Pagers for table records and connection records.
//!
//! * Table records: keyset paging (`order_by` + `after` = the last record's
//!   order value) when ordering ascending, because "greater than" only works
//!   that way; offset paging for descending order, without `order_by`, or when
//!   asked (keyset needs a unique order column).
//! * Connection records: offset paging.
//!
//! A pager stops on a short (or empty) page. Each page is one [`Call`], so it
//! goes through the throttle: with 5 table reads per minute per user, the
//! sixth page waits for the window instead of failing.

use super::call::{Call, CallEvent, Step};
use super::client::Client;
use super::error::ClientError;
use super::http::Outcome;
use super::request::{EgressMode, RequestSpec};
use super::retry::RetryCause;
use crate::model::catalogue::DEFAULT_PAGE_SIZE;
use crate::model::ParamRole;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// How pages follow each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PagingMode {
    /// `offset` grows by the records received.
    Offset,
    /// `after` is the last record's `order_by` value.
    Keyset,
}

/// Options of a table pager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TablePagerOptions {
    /// Records per page (1 to 5000).
    pub page_size: u64,
    /// Column to order by.
    pub order_by: Option<String>,
    /// Descending order (paged by offset).
    pub descending: bool,
    /// Page by offset even when keyset paging is possible (for an order
    /// column whose values are not unique).
    pub offset_only: bool,
    /// Credential id; the client's first when `None`.
    pub credential: Option<String>,
}

impl Default for TablePagerOptions {
    fn default() -> Self {
        Self {
            page_size: DEFAULT_PAGE_SIZE,
            order_by: None,
            descending: false,
            offset_only: false,
            credential: None,
        }
    }
}

/// Options of a connection-records pager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConnectionPagerOptions {
    /// Records per page (1 to 500).
    pub page_size: u64,
    /// Filter JSON understood by the connection.
    pub filter: Option<String>,
    /// Stable egress.
    pub egress: EgressMode,
    /// Credential id (an API key); the client's first when `None`.
    pub credential: Option<String>,
}

impl Default for ConnectionPagerOptions {
    fn default() -> Self {
        Self {
            page_size: DEFAULT_PAGE_SIZE,
            filter: None,
            egress: EgressMode::Default,
            credential: None,
        }
    }
}

/// What one outcome did to a pager.
#[derive(Debug, Clone)]
pub enum PagerEvent {
    /// A page arrived; `last` when it was short (the pager is done).
    Page {
        /// The records, raw JSON objects as received.
        records: Vec<Box<RawValue>>,
        /// Whether this was the final page.
        last: bool,
    },
    /// The page request will be retried at `at`.
    Retrying {
        /// The instant.
        at: UnixMillis,
        /// Why.
        cause: RetryCause,
    },
    /// Paging stopped with this error.
    Failed(ClientError),
}

/// Pages through a table's or a connection's records.
#[derive(Debug, Clone)]
pub struct Pager {
    base: RequestSpec,
    mode: PagingMode,
    page_size: u64,
    order_by: Option<String>,
    offset: u64,
    after: Option<String>,
    call: Option<Call>,
    finished: bool,
    pages: u64,
}

impl Pager {
    /// A pager over table `table`.
    pub fn table(table: impl Into<String>, options: TablePagerOptions) -> Self {
        let mut base = RequestSpec::list_table_records(table);
        base.credential = options.credential;
        let mode = match (&options.order_by, options.descending, options.offset_only) {
            (Some(_), false, false) => PagingMode::Keyset,
            _ => PagingMode::Offset,
        };
        if let Some(column) = &options.order_by {
            base = base.param(ParamRole::OrderBy, column.clone());
            if options.descending {
                base = base.param(ParamRole::Direction, "desc");
            }
        }
        Self::with_base(base, mode, options.page_size, options.order_by)
    }

    /// A pager over `connection`'s records of `entity`.
    pub fn connection(
        connection: impl Into<String>,
        entity: impl Into<String>,
        options: ConnectionPagerOptions,
    ) -> Self {
        let mut base =
            RequestSpec::list_connection_records(connection, entity).egress(options.egress);
        base.credential = options.credential;
        if let Some(filter) = options.filter {
            base = base.param(ParamRole::Filter, filter);
        }
        Self::with_base(base, PagingMode::Offset, options.page_size, None)
    }

    fn with_base(
        base: RequestSpec,
        mode: PagingMode,
        page_size: u64,
        order_by: Option<String>,
    ) -> Self {
        Self {
            base,
            mode,
            page_size,
            order_by,
            offset: 0,
            after: None,
            call: None,
            finished: false,
            pages: 0,
        }
    }

    /// How pages follow each other.
    pub fn mode(&self) -> PagingMode {
        self.mode
    }

    /// Pages delivered so far.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Whether paging is over (last page seen or failed).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn next_spec(&self) -> RequestSpec {
        let mut spec = self
            .base
            .clone()
            .param(ParamRole::Limit, self.page_size.to_string());
        match self.mode {
            PagingMode::Offset => spec = spec.param(ParamRole::Offset, self.offset.to_string()),
            PagingMode::Keyset => {
                if let Some(after) = &self.after {
                    spec = spec.param(ParamRole::After, after.clone());
                }
            }
        }
        spec
    }

    /// What to do at `now`. An error (e.g. an invalid page size) ends paging
    /// before anything is sent.
    pub fn poll(&mut self, client: &mut Client, now: UnixMillis) -> Result<Step, ClientError> {
        if self.finished {
            return Ok(Step::Done);
        }
        if self.call.is_none() {
            match Call::build(client, &self.next_spec()) {
                Ok(call) => self.call = Some(call),
                Err(error) => {
                    self.finished = true;
                    return Err(error);
                }
            }
        }
        Ok(match &mut self.call {
            Some(call) => call.poll(client, now),
            None => Step::Done,
        })
    }

    /// Takes the outcome of the page request in flight; `None` if none is.
    pub fn handle(
        &mut self,
        client: &mut Client,
        outcome: &Outcome,
        now: UnixMillis,
    ) -> Option<PagerEvent> {
        let event = self.call.as_mut()?.handle(client, outcome, now)?;
        Some(match event {
            CallEvent::Retrying { at, cause, .. } => PagerEvent::Retrying { at, cause },
            CallEvent::Finished(result) => {
                self.call = None;
                match result.map(|response| response.into_records()) {
                    Ok(Some(records)) => self.advance(records),
                    Ok(None) => self.fail(ClientError::Protocol {
                        status: 200,
                        problem: "a page request was answered with something other than records"
                            .into(),
                    }),
                    Err(error) => self.fail(error),
                }
            }
        })
    }

    fn fail(&mut self, error: ClientError) -> PagerEvent {
        self.finished = true;
        PagerEvent::Failed(error)
    }

    fn advance(&mut self, records: Vec<Box<RawValue>>) -> PagerEvent {
        let count = u64::try_from(records.len()).unwrap_or(u64::MAX);
        let last = count < self.page_size;
        if !last {
            match self.mode {
                PagingMode::Offset => self.offset = self.offset.saturating_add(count),
                PagingMode::Keyset => {
                    let column = self.order_by.clone().unwrap_or_default();
                    match records
                        .last()
                        .and_then(|record| order_value(record, &column))
                    {
                        Some(value) => self.after = Some(value),
                        None => {
                            return self.fail(ClientError::KeysetValueMissing {
                                column,
                                position: records.len().saturating_sub(1),
                            })
                        }
                    }
                }
            }
        }
        self.pages += 1;
        self.finished = last;
        PagerEvent::Page { records, last }
    }
}

/// A record's value in `column` as `after` text: a string as is, a number
/// as written; anything else (missing, null, object…) is unusable.
fn order_value(record: &RawValue, column: &str) -> Option<String> {
    let object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(record.get()).ok()?;
    match object.get(column)? {
        serde_json::Value::String(text) if !text.is_empty() => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}
