//! The JSON of events and errors in the driver protocol: [`Event`]'s
//! `Serialize` (tagged by `type`), and [`ErrorJson`], the error object every
//! `failed` event and every refused byte-level call carries: the error's own
//! members plus `category`, `message` (the sentence) and `status` when an
//! HTTP answer caused it.

use crate::client::deprecation::DeprecationWarning;
use crate::client::error::ClientError;
use crate::client::event::{Event, LimitInfo};
use crate::client::http::TransportFailure;
use crate::client::notice::deprecation_message;
use crate::client::response::ApiResponse;
use crate::client::throttle::WaitReason;
use crate::model::ApiIndex;
use crate::UnixMillis;
use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// A response's `body` member: the records, the index, or the object.
#[derive(Serialize)]
#[serde(untagged)]
enum ResponseBody<'a> {
    Records(&'a [Box<RawValue>]),
    Index(&'a ApiIndex),
    Object(&'a RawValue),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum EventJson<'a> {
    Response {
        status: u16,
        body: ResponseBody<'a>,
    },
    Page {
        page: u64,
        last: bool,
        records: &'a [Box<RawValue>],
    },
    RunStatus {
        status: &'a str,
        terminal: bool,
        run: &'a RawValue,
    },
    Waiting {
        until: UnixMillis,
        limit: Option<&'a LimitInfo>,
        reason: WaitReason,
        message: &'a str,
    },
    Retrying {
        attempt: u32,
        max_attempts: u32,
        at: UnixMillis,
        status: Option<u16>,
        failure: Option<TransportFailure>,
        message: &'a str,
    },
    Deprecation {
        #[serde(flatten)]
        warning: &'a DeprecationWarning,
        message: String,
    },
    Done,
    Failed {
        error: ErrorJson<'a>,
    },
}

impl<'a> From<&'a Event> for EventJson<'a> {
    fn from(event: &'a Event) -> Self {
        match event {
            Event::Response(response) => {
                let body = match response {
                    ApiResponse::Records { records, .. } => ResponseBody::Records(records),
                    ApiResponse::Index { index, .. } => ResponseBody::Index(index),
                    ApiResponse::Object { value, .. } => ResponseBody::Object(value),
                };
                EventJson::Response {
                    status: response.status(),
                    body,
                }
            }
            Event::Page {
                records,
                page,
                last,
            } => EventJson::Page {
                page: *page,
                last: *last,
                records,
            },
            Event::RunStatus {
                status,
                terminal,
                run,
            } => EventJson::RunStatus {
                status,
                terminal: *terminal,
                run,
            },
            Event::Waiting {
                until,
                limit,
                reason,
                message,
            } => EventJson::Waiting {
                until: *until,
                limit: limit.as_ref(),
                reason: *reason,
                message,
            },
            Event::Retrying {
                attempt,
                max_attempts,
                at,
                status,
                failure,
                message,
            } => EventJson::Retrying {
                attempt: *attempt,
                max_attempts: *max_attempts,
                at: *at,
                status: *status,
                failure: *failure,
                message,
            },
            Event::Deprecation(warning) => EventJson::Deprecation {
                warning,
                message: deprecation_message(warning),
            },
            Event::Done => EventJson::Done,
            Event::Failed(error) => EventJson::Failed {
                error: ErrorJson(error),
            },
        }
    }
}

impl Serialize for Event {
    /// The driver protocol's event object (without `call`).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        EventJson::from(self).serialize(serializer)
    }
}

/// The HTTP status behind `error`, when an answer caused it.
pub fn error_status(error: &ClientError) -> Option<u16> {
    match error {
        ClientError::Api { status, .. }
        | ClientError::Protocol { status, .. }
        | ClientError::Redirect { status, .. }
        | ClientError::BodyTooLarge { status, .. }
        | ClientError::RateLimitedTooLong { status, .. } => Some(*status),
        ClientError::GaveUp { last, .. } => error_status(last),
        _ => None,
    }
}

/// A [`ClientError`] as the protocol's error object: its own members
/// (tagged by `type`), `category`, `message` and, when an HTTP answer caused
/// it, `status`.
#[derive(Debug, Clone, Copy)]
pub struct ErrorJson<'a>(pub &'a ClientError);

impl ErrorJson<'_> {
    /// The object as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl Serialize for ErrorJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let error = self.0;
        let serde_json::Value::Object(mut members) =
            serde_json::to_value(error).map_err(S::Error::custom)?
        else {
            return Err(S::Error::custom("a client error serialises as an object"));
        };
        members.insert("category".into(), error.category().as_str().into());
        members.insert("message".into(), error.to_string().into());
        if let Some(status) = error_status(error) {
            members.insert("status".into(), status.into());
        }
        let mut map = serializer.serialize_map(Some(members.len()))?;
        for (name, value) in &members {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}
