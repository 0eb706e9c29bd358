//! The client role, sans-IO: one driver ([`Client`]) owning its calls —
//! single requests, table and connection pagers, run pollers — with its
//! throttle, retry planner, budget and deprecation notices.
//!
//! The caller owns the transport and the clock; the client owns the rules.
//! A drive loop: start calls, then repeatedly send what
//! [`Client::poll_transmit`] hands out, give each outcome to
//! [`Client::handle`], drain [`Client::poll_event`], and sleep until
//! [`Client::poll_timeout`].
//!
//! ```
//! use acd_core::client::{Client, ClientConfig, ClientCredential, Entropy, Event, HttpResponse, Outcome, RequestSpec};
//! use acd_core::model::ParamRole;
//! let config = ClientConfig::default()
//!     .with_credential(ClientCredential::api_key("main", "acd_live_demo_ada", "ada"));
//! let mut client = Client::new(config, Entropy::from_seed(7)).unwrap();
//! let id = client.start(RequestSpec::list_table_records("orders").param(ParamRole::Limit, "2")).unwrap();
//! let now = 1_700_000_000_000;
//! let sent = client.poll_transmit(now).unwrap();
//! assert_eq!((sent.id, sent.request.url.as_str()), (id, "http://127.0.0.1:8080/api/v1/tables/orders?limit=2"));
//! // ... the caller's transport sends `sent.request` and receives:
//! let response = HttpResponse::new(200, r#"{"data":[{"id":1},{"id":2}]}"#)
//!     .with_header("RateLimit-Limit", "5")
//!     .with_header("RateLimit-Remaining", "4")
//!     .with_header("RateLimit-Reset", "60");
//! client.handle(id, Outcome::Response(response), now + 30).unwrap();
//! let Some((_, Event::Response { response: page, .. })) = client.poll_event() else { panic!("expected the page") };
//! assert_eq!(page.records().unwrap()[1].get(), r#"{"id":2}"#);
//! assert_eq!(client.poll_event(), Some((id, Event::Done)));
//! assert!(client.is_idle());
//!
//! // A bad page size fails before any I/O, with the gate's own sentence.
//! let error = client.start(RequestSpec::list_table_records("orders").param(ParamRole::Limit, "0")).unwrap_err();
//! assert!(error.to_string().contains("limit must be an integer from 1 to 5000"));
//! ```
//!
//! The parts stay public for advanced use, off the main path:
//! [`build_request`], [`interpret`], [`Throttle`], [`RetryPlanner`].

mod backoff;
mod budget;
mod calls;
mod category;
mod completion;
mod config;
mod deprecation;
mod driver;
mod error;
mod error_members;
mod event;
mod http;
mod member;
mod notice;
mod paging;
mod polling;
mod random;
mod ratelimit_headers;
mod raw;
mod request;
mod response;
mod retry;
mod sentence;
mod server_wait;
mod start;
mod structured;
mod throttle;
pub mod wire;

pub use backoff::{BackoffPolicy, DEFAULT_BASE_MS, DEFAULT_CAP_MS};
pub use budget::{BudgetPolicy, RetryBudget};
pub use calls::CallId;
pub use category::ErrorCategory;
pub use config::{
    normalise_base_url, stable_egress_url_for, ApiKeyHeader, ClientConfig, ClientCredential,
    CLIENT_VERSION, DEFAULT_BASE_URL, DEFAULT_CREDENTIAL_ID, DEFAULT_CREDENTIAL_USER,
    DEFAULT_EXCHANGE_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, ENV_API_KEY, ENV_BASE_URL, ENV_TOKEN,
    STABLE_EGRESS_PATH, USER_AGENT,
};
pub use deprecation::{parse_deprecation, Deprecated, DeprecationTracker, DeprecationWarning};
pub use driver::{Client, Transmit};
pub use error::{ClientError, GiveUpReason};
pub use error_members::ExtraMembers;
pub use event::{Event, LimitInfo, LimitOrigin};
pub use http::{url_origin, HttpResponse, Outcome, TransportFailure};
pub use member::string_member;
pub use notice::{notice_levels, NoticeLevel, VISIBLE_WAIT_MS};
pub use paging::{ConnectionPagerOptions, PagingMode, TablePagerOptions};
pub use polling::PollOptions;
pub use random::{uniform_inclusive, Entropy, KeyStream, RandomSource, SplitMix64};
pub use ratelimit_headers::{
    parse_rate_limit_headers, HeaderDialect, LimitObservation, RateLimitHeaders,
};
pub use request::{
    build_request, redact_headers, ClientRequest, EgressMode, LimitRef, RequestSpec,
};
pub use response::{check_body_size, interpret, returns_list, ApiResponse};
pub use retry::{
    AttemptState, RetryCause, RetryDecision, RetryPlanner, RetryPolicy, DEFAULT_MAX_RETRY_AFTER_MS,
    MIN_RETRY_DELAY_MS,
};
pub use server_wait::{bound_window_ms, ServerWait};
pub use throttle::{
    unattributed_key, Hold, LimitModel, LimitSource, Plan, Throttle, WaitReason, MAX_MODELS,
};
pub use wire::{
    run_body, Batch, CallOptions, CallSpec, ConnectionPagesCall, ConnectionRead, ErrorJson,
    LimitView, RequestCall, RunPollCall, TablePagesCall, TableRead,
};
