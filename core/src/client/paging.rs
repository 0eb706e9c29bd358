//! Paging rules of the table and connection pagers the driver runs
//! ([`super::CallSpec::table_pages`], [`super::CallSpec::connection_pages`]).
//!
//! * Table records: keyset paging (`order_by` + `after` = the last record's
//!   order value) only when the caller declares the order column unique
//!   ([`TablePagerOptions::unique_order`]) and the order is ascending: the
//!   spec's lower bound is strictly "greater than", so rows sharing the last
//!   value of a full page would be skipped. Offset paging otherwise.
//! * Connection records: offset paging.
//!
//! A pager stops on a short (or empty) page. Each page is one request of the
//! driver, so it goes through the throttle: with 5 table reads per minute per
//! user, the sixth page waits for the window instead of failing.

use super::error::ClientError;
use super::member::member;
use super::request::{EgressMode, RequestSpec};
use crate::model::catalogue::DEFAULT_PAGE_SIZE;
use crate::model::ParamRole;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// How pages follow each other.
#[non_exhaustive]
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
    /// The caller declares that no two records share a value of `order_by`,
    /// so keyset paging (`after`) cannot skip rows. Default `false`: pages
    /// follow by offset.
    pub unique_order: bool,
    /// Credential id; the client's first when `None`.
    pub credential: Option<String>,
}

impl Default for TablePagerOptions {
    fn default() -> Self {
        Self {
            page_size: DEFAULT_PAGE_SIZE,
            order_by: None,
            descending: false,
            unique_order: false,
            credential: None,
        }
    }
}

impl TablePagerOptions {
    /// How these options page: keyset only for a unique column, ascending.
    pub fn mode(&self) -> PagingMode {
        match (&self.order_by, self.descending, self.unique_order) {
            (Some(_), false, true) => PagingMode::Keyset,
            _ => PagingMode::Offset,
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

/// Where a pager is: what the next page request is, and pages so far.
#[derive(Debug, Clone)]
pub(crate) struct PagerState {
    base: RequestSpec,
    mode: PagingMode,
    page_size: u64,
    order_by: Option<String>,
    offset: u64,
    after: Option<String>,
    pages: u64,
}

impl PagerState {
    /// A pager over table `table`.
    pub(crate) fn table(table: &str, options: TablePagerOptions) -> Self {
        let mode = options.mode();
        let mut base = RequestSpec::list_table_records(table);
        base.credential = options.credential;
        if let Some(column) = &options.order_by {
            base = base.param(ParamRole::OrderBy, column.clone());
            if options.descending {
                base = base.param(ParamRole::Direction, "desc");
            }
        }
        Self::with_base(base, mode, options.page_size, options.order_by)
    }

    /// A pager over `connection`'s records of `entity`.
    pub(crate) fn connection(
        connection: &str,
        entity: &str,
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
            pages: 0,
        }
    }

    /// The request of the next page.
    pub(crate) fn next_spec(&self) -> RequestSpec {
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

    /// Takes a page's records: its number (1 for the first page) and
    /// whether it was the last, or why paging cannot go on.
    pub(crate) fn advance(
        &mut self,
        records: &[Box<RawValue>],
    ) -> Result<(u64, bool), ClientError> {
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
                            return Err(ClientError::KeysetValueMissing {
                                column,
                                position: records.len().saturating_sub(1),
                            })
                        }
                    }
                }
            }
        }
        self.pages = self.pages.saturating_add(1);
        Ok((self.pages, last))
    }
}

/// A record's value in `column` as `after` text: a string as is, a number
/// as written; anything else (missing, null, object…) is unusable.
fn order_value(record: &RawValue, column: &str) -> Option<String> {
    let value = member(record.get(), column)?;
    let value = value.get().as_bytes();
    match serde_json::from_slice::<String>(value) {
        Ok(text) => (!text.is_empty()).then_some(text),
        Err(_) => serde_json::from_slice::<serde_json::Number>(value)
            .ok()
            .map(|number| number.to_string()),
    }
}
