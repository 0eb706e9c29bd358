//! The client role's one public error type, [`ClientError`], and the reasons
//! a retry planner gives up ([`GiveUpReason`]).
//!
//! Every variant is plain owned data (serialisable, so the conformance vectors
//! and the language bindings see exactly the same values) and its message is a
//! sentence a person can act on. Secrets never appear in either.

use super::error_members::ExtraMembers;
use super::http::TransportFailure;
use super::sentence::{date_text, duration_text};
use crate::model::ParamProblem;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// Why the retry planner stopped retrying a logical call.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GiveUpReason {
    /// The status is never retried (a 4xx other than 429): the request
    /// itself has to change.
    #[error("status {status} is not retried; change the request before sending it again")]
    NotRetryable {
        /// The HTTP status.
        status: u16,
    },
    /// The request may have reached the server and is not idempotent.
    #[error(
        "the {method} request may already have been processed and carries no idempotency key, \
         so retrying it could repeat its effect; give it an idempotency key to make retries safe"
    )]
    UnsafeToRetry {
        /// The HTTP method.
        method: String,
    },
    /// The policy's maximum number of attempts was reached (every attempt
    /// counts, 429s included).
    #[error("all {attempts} attempts allowed by the retry policy were used")]
    MaxAttempts {
        /// Attempts made.
        attempts: u32,
    },
    /// The server refused more attempts with a 429 that said when to
    /// return than [`super::RetryPolicy::max_throttled`] allows.
    #[error(
        "the server refused {refusals} attempts with 429, more than the retry policy's \
         limit on throttled attempts allows; the quota is in use elsewhere, so try again later"
    )]
    MaxThrottled {
        /// 429s with a server time met, this one included.
        refusals: u32,
    },
    /// The next attempt would start after the overall deadline.
    #[error(
        "the next attempt (at {}) would start {} after the call's deadline ({}); raise the \
         retry policy's deadline to wait longer",
        date_text(*next_at),
        duration_text(next_at.saturating_since(*deadline_at)),
        date_text(*deadline_at)
    )]
    Deadline {
        /// When the call must be finished.
        deadline_at: UnixMillis,
        /// When the next attempt would have been sent.
        next_at: UnixMillis,
    },
    /// The server asked for a longer wait than the caller accepts.
    #[error(
        "the server asked to retry at {} ({} from now), longer than the {} the retry \
         policy's longest server wait allows; retry after that time",
        date_text(*retry_at),
        duration_text(*wait_ms),
        duration_text(*max_wait_ms)
    )]
    RetryAfterTooLong {
        /// The server's retry time.
        retry_at: UnixMillis,
        /// How long that is from the response.
        wait_ms: u64,
        /// The caller's maximum.
        max_wait_ms: u64,
    },
    /// This client's retry budget is spent (many recent failures).
    #[error(
        "the client's retry budget is exhausted ({available} tokens left, this retry costs \
         {cost}); the service is failing often, so retries stop until requests succeed again"
    )]
    BudgetExhausted {
        /// Tokens left.
        available: u32,
        /// Tokens the retry would have cost.
        cost: u32,
    },
}

/// Everything that can go wrong in the client role, as one flat enum.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientError {
    /// The operation id is not in the client's catalogue.
    #[error(
        "operation {operation:?} is not in this client's catalogue; check the spelling or add \
         it to the client's catalogue"
    )]
    UnknownOperation {
        /// The operation id asked for.
        operation: String,
    },
    /// A path parameter of the template was not given.
    #[error("operation {operation:?} needs the path parameter {param:?}; give it a value")]
    MissingPathParam {
        /// The operation.
        operation: String,
        /// The missing parameter.
        param: String,
    },
    /// A path parameter was given that the template does not have, or was empty.
    #[error("operation {operation:?} path parameter {param:?}: {problem}")]
    BadPathParam {
        /// The operation.
        operation: String,
        /// The parameter.
        param: String,
        /// What is wrong.
        problem: String,
    },
    /// Query parameters failed the validators the gate uses.
    #[error("{}", invalid_params_sentence(operation, problems))]
    InvalidParams {
        /// The operation.
        operation: String,
        /// Every problem found.
        problems: Vec<ParamProblem>,
    },
    /// The operation needs a credential and none is configured.
    #[error(
        "operation {operation:?} needs a credential; give the client an API key or an OAuth \
         token"
    )]
    NoCredential {
        /// The operation.
        operation: String,
    },
    /// The request named a credential the client does not have.
    #[error("the client has no credential with id {credential:?}; name one of its credentials")]
    UnknownCredential {
        /// The id asked for.
        credential: String,
    },
    /// An OAuth token was chosen for an operation that accepts API keys only.
    #[error(
        "operation {operation:?} accepts API keys only, but credential {credential:?} is an \
         OAuth token; choose an API key for this request"
    )]
    CredentialNotAccepted {
        /// The operation.
        operation: String,
        /// The credential's id.
        credential: String,
    },
    /// Stable egress was asked for where it is not available.
    #[error("stable egress is not available for operation {operation:?}: {problem}")]
    StableEgressUnavailable {
        /// The operation.
        operation: String,
        /// Why.
        problem: String,
    },
    /// A configuration value is unusable.
    #[error("configuration `{field}`: {problem}")]
    InvalidConfig {
        /// The field.
        field: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
    /// The API answered with an Error body.
    #[error("the API answered {status}: {detail}")]
    Api {
        /// The HTTP status.
        status: u16,
        /// The body's `detail` sentence.
        detail: String,
        /// Every other member of the body (e.g. the 400 `errors` array).
        extra: ExtraMembers,
        /// For a 429: when the server said the limit admits a request again
        /// (its `Retry-After` or rate-limit headers), when it said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_at: Option<UnixMillis>,
    },
    /// The response broke the API's contract (wrong envelope, bad JSON…).
    #[error("the response (status {status}) broke the API contract: {problem}")]
    Protocol {
        /// The HTTP status.
        status: u16,
        /// What was wrong with it.
        problem: String,
    },
    /// The server answered a redirect (3xx). The client never follows one,
    /// so credentials never reach another address: point `base_url` at the
    /// final address instead. `location` is the `Location` header without
    /// its query, fragment or user information (they may hold secrets).
    #[error(
        "the API answered {status} (a redirect{}), which the client does not follow so that \
         credentials never reach another address; set base_url to the address the API is served at",
        location_clause(location.as_deref())
    )]
    Redirect {
        /// The HTTP status (300 to 399).
        status: u16,
        /// Where the server pointed, its query and fragment removed.
        location: Option<String>,
    },
    /// The response body was larger than [`super::ClientConfig::max_body_bytes`];
    /// the transport stopped reading it.
    #[error(
        "the response (status {status}) has a body larger than the {limit} bytes \
         the client's max body size allows, so it was not read; ask for a smaller page \
         or raise the client's max body size"
    )]
    BodyTooLarge {
        /// The HTTP status.
        status: u16,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The call was not sent: a limit its request counts against admits no
    /// request before a time the server named in a 429 further ahead than
    /// [`super::RetryPolicy::max_retry_after_ms`], so the call ends at once
    /// instead of waiting. No HTTP answer belongs to this call (it carries
    /// no `status`); its category is `rate_limit`.
    #[error(
        "not sent: the server says the {limit} limit admits no request before {} ({} from now), longer \
         than the {} the retry policy's longest server wait allows; try again after that time",
        date_text(*retry_at),
        duration_text(*wait_ms),
        duration_text(*max_wait_ms)
    )]
    RateLimitedTooLong {
        /// The limit's name.
        limit: String,
        /// The server's time.
        retry_at: UnixMillis,
        /// How long that is from now.
        wait_ms: u64,
        /// The caller's maximum.
        max_wait_ms: u64,
    },
    /// The transport failed and the call was not (or no longer) retried.
    #[error("{}", transport_sentence(*failure, origin.as_deref()))]
    Transport {
        /// How it failed.
        failure: TransportFailure,
        /// The origin it was sent to (`scheme://host:port`: never a
        /// credential, path or query), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
    },
    /// Retrying stopped; `last` is the final attempt's error.
    #[error("gave up after {attempts} attempt(s): {reason}; last error: {last}")]
    GaveUp {
        /// Why retrying stopped.
        reason: GiveUpReason,
        /// Attempts made.
        attempts: u32,
        /// The final attempt's error.
        last: Box<ClientError>,
    },
    /// A run poller's deadline passed before the run reached a terminal status.
    #[error(
        "the run did not reach a terminal status before the wait's deadline ({}); its last \
         status was {last_status:?}; raise the run wait's timeout to wait longer",
        date_text(*deadline_at)
    )]
    PollDeadline {
        /// The deadline.
        deadline_at: UnixMillis,
        /// The last status seen.
        last_status: String,
    },
    /// The driver was handed an outcome for a call it does not know.
    #[error("call-{call} is not a call of this client (it ended, or was never started); hand outcomes only for requests this client gave out to send")]
    UnknownCall {
        /// The call's id.
        call: u64,
    },
    /// The driver was handed an outcome for a call with nothing in flight.
    #[error("call-{call} has no request in flight; hand exactly one outcome per request this client gave out to send")]
    NothingInFlight {
        /// The call's id.
        call: u64,
    },
    /// Input handed to the client (a call spec, a transport outcome, a
    /// per-call option) could not be read; nothing was sent.
    #[error("the {input} is not valid: {problem}")]
    InvalidInput {
        /// What was handed over, e.g. `call spec`.
        input: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
    /// A per-call header names one the client sets itself, or is not a
    /// valid HTTP header; nothing was sent.
    #[error("the call's header {header:?} cannot be sent: {problem}")]
    HeaderNotAllowed {
        /// The header's name as given.
        header: String,
        /// Why it is refused.
        problem: String,
    },
    /// The call's own timeout (`timeout_ms` of its options) passed before it
    /// finished, waits and retries included.
    #[error(
        "the call did not finish within its timeout of {} from its first send (waits and \
         retries included); raise the call's timeout to wait longer",
        duration_text(*timeout_ms)
    )]
    CallTimedOut {
        /// The call's timeout.
        timeout_ms: u64,
    },
    /// A keyset pager met a record without a usable order value.
    #[error(
        "record {position} of the page has no usable value in column {column:?} (a string or \
         number is needed to continue with `after`); page by offset for this column instead"
    )]
    KeysetValueMissing {
        /// The order column.
        column: String,
        /// The record's position in its page.
        position: usize,
    },
}

fn location_clause(location: Option<&str>) -> String {
    match location {
        Some(location) => format!(" to {location}"),
        None => " without a Location".to_owned(),
    }
}

fn invalid_params_sentence(operation: &str, problems: &[ParamProblem]) -> String {
    let shown: Vec<String> = problems
        .iter()
        .take(3)
        .map(|p| format!("{} {}", p.parameter, p.problem))
        .collect();
    let more = problems.len().saturating_sub(shown.len());
    let tail = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    format!(
        "the request to {operation:?} has {} invalid parameter{} (nothing was sent): {}{tail}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        shown.join("; ")
    )
}

/// The sentence of a transport failure, naming the origin when known.
fn transport_sentence(failure: TransportFailure, origin: Option<&str>) -> String {
    match origin {
        Some(origin) => format!("the request to {origin} failed in transport: {failure}"),
        None => format!("the request failed in transport: {failure}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_sentences_and_serialise_flat() {
        let error = ClientError::InvalidParams {
            operation: "listTableRecords".into(),
            problems: vec![ParamProblem::new(
                "limit",
                "must be an integer from 1 to 5000; got \"0\"",
            )],
        };
        assert_eq!(
            error.to_string(),
            "the request to \"listTableRecords\" has 1 invalid parameter (nothing was sent): \
             limit must be an integer from 1 to 5000; got \"0\""
        );
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["type"], "invalid_params");
        let back: ClientError = serde_json::from_value(json).unwrap();
        assert_eq!(back, error);
    }
}
