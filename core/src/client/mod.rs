//! The client role: requests, responses, proactive throttling, retry
//! planning, pagers and run polling — all sans-IO.
//!
//! The caller owns the transport and the clock; the client owns the rules:
//!
//! 1. [`Client::build`] turns a [`RequestSpec`] into a [`ClientRequest`]
//!    (URL, headers, body), validated with the gate's own validators.
//! 2. [`Client::plan`] says "send now" or "wait until T" from its model of
//!    every rate limit ([`Throttle`]), so a well-behaved client does not meet
//!    a 429 it could have avoided.
//! 3. [`Client::on_sent`] records the send; [`Client::on_outcome`] takes the
//!    response (or transport failure) and answers "retry at T" or the typed
//!    result ([`ApiResponse`] or [`ClientError`]).
//!
//! [`Call`], [`Pager`] and [`RunPoller`] wrap that loop as state machines with
//! `poll(client, now) -> Step` and `handle(client, outcome, now)`.
//!
//! ```
//! use acd_core::client::{Client, ClientConfig, ClientCredential, Outcome, HttpResponse, Plan, RequestSpec, Handled};
//! use acd_core::model::ParamRole;
//! let config = ClientConfig::default()
//!     .with_credential(ClientCredential::api_key("main", "acd_live_demo_ada", "ada"));
//! let mut client = Client::new(config).unwrap();
//! let spec = RequestSpec::list_table_records("orders").param(ParamRole::Limit, "2");
//! let mut request = client.build(&spec).unwrap();
//! assert_eq!(request.url, "http://127.0.0.1:8080/api/v1/tables/orders?limit=2");
//! let now = 1_700_000_000_000;
//! assert_eq!(client.plan(&request, now), Plan::SendNow);
//! client.on_sent(&mut request, now);
//! // ... the caller's transport sends `request` and receives:
//! let response = HttpResponse::new(200, r#"{"data":[{"id":1},{"id":2}]}"#)
//!     .header("RateLimit-Limit", "5")
//!     .header("RateLimit-Remaining", "4")
//!     .header("RateLimit-Reset", "60");
//! let Handled::Finished(Ok(page)) = client.on_outcome(&mut request, &Outcome::Response(response), now + 30)
//! else { panic!("expected a page") };
//! assert_eq!(page.records().unwrap()[1].get(), r#"{"id":2}"#);
//!
//! // A bad page size fails before any I/O, with the gate's own sentence.
//! let error = client.build(&RequestSpec::list_table_records("orders").param(ParamRole::Limit, "0")).unwrap_err();
//! assert!(error.to_string().contains("limit must be an integer from 1 to 5000"));
//! ```

pub mod backoff;
pub mod budget;
pub mod call;
#[allow(clippy::module_inception)]
pub mod client;
pub mod config;
pub mod deprecation;
pub mod error;
pub mod http;
pub mod pager;
pub mod poller;
pub mod random;
pub mod ratelimit_headers;
pub mod request;
pub mod response;
pub mod retry;
mod structured;
pub mod throttle;

pub use backoff::BackoffPolicy;
pub use budget::{BudgetPolicy, RetryBudget};
pub use call::{Call, CallEvent, Step};
pub use client::{Client, Handled};
pub use config::{ApiKeyHeader, ClientConfig, ClientCredential};
pub use deprecation::{Deprecated, DeprecationTracker, DeprecationWarning};
pub use error::{ClientError, GiveUpReason};
pub use http::{HttpResponse, Outcome, TransportFailure};
pub use pager::{ConnectionPagerOptions, Pager, PagerEvent, PagingMode, TablePagerOptions};
pub use poller::{PollEvent, PollOptions, RunPoller};
pub use random::{RandomSource, SplitMix64};
pub use ratelimit_headers::{parse_rate_limit_headers, LimitObservation, RateLimitHeaders};
pub use request::{build_request, ClientRequest, EgressMode, LimitRef, RequestSpec};
pub use response::{interpret, ApiResponse};
pub use retry::{RetryCause, RetryDecision, RetryPlanner, RetryPolicy};
pub use throttle::{LimitModel, Plan, Throttle, WaitReason};
