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
use serde::ser::Error as _;
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
        headers: &'a [(String, String)],
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
            Event::Response { response, headers } => {
                let body = match response {
                    ApiResponse::Records { records, .. } => ResponseBody::Records(records),
                    ApiResponse::Index { index, .. } => ResponseBody::Index(index),
                    ApiResponse::Object { value, .. } => ResponseBody::Object(value),
                };
                EventJson::Response {
                    status: response.status(),
                    headers,
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

/// The HTTP status an error carries as its own `status` member.
fn own_status(error: &ClientError) -> Option<u16> {
    match error {
        ClientError::Api { status, .. }
        | ClientError::Protocol { status, .. }
        | ClientError::Redirect { status, .. }
        | ClientError::BodyTooLarge { status, .. } => Some(*status),
        _ => None,
    }
}

/// The HTTP status behind `error`, when an answer caused it.
pub fn error_status(error: &ClientError) -> Option<u16> {
    match error {
        ClientError::GaveUp { last, .. } => error_status(last),
        _ => own_status(error),
    }
}

/// The API's error body as it sent it: `detail`, `status` and its other
/// members, as one JSON object.
fn body_json(status: u16, detail: &str, extra: &crate::client::ExtraMembers) -> String {
    let mut map = extra.to_map();
    map.insert("detail".into(), detail.into());
    map.insert("status".into(), status.into());
    serde_json::Value::Object(map).to_string()
}

/// A [`ClientError`] as the protocol's one flat error object: its own
/// members (tagged by `type`), then `category`, `message` (the sentence),
/// `status` (the HTTP status behind it, or `null`), `detail` (the API's
/// sentence, else the message), `body` (the API's error body, or `null`),
/// `retry_at_ms` (when the server said to come back, or `null`) and `sent`
/// (whether the failing request reached the wire).
#[derive(Debug, Clone, Copy)]
pub struct ErrorJson<'a>(pub &'a ClientError);

impl ErrorJson<'_> {
    /// The object as JSON text: the error's own object (written by its
    /// typed `Serialize`, no `serde_json::Value` in between) with the
    /// protocol's members appended.
    pub fn to_json(&self) -> String {
        let error = self.0;
        // A client error always serialises as an object holding `type`.
        let mut text = serde_json::to_string(error).unwrap_or_default();
        if text.pop() != Some('}') {
            text = String::from("{");
        }
        if text.len() > 1 {
            text.push(',');
        }
        text.push_str("\"category\":\"");
        text.push_str(error.category().as_str());
        text.push_str("\",\"message\":");
        text.push_str(&serde_json::to_string(&error.to_string()).unwrap_or_default());
        if own_status(error).is_none() {
            text.push_str(",\"status\":");
            match error_status(error) {
                Some(status) => text.push_str(&status.to_string()),
                None => text.push_str("null"),
            }
        }
        let message = error.to_string();
        let (detail, body) = match error.api_body() {
            Some((status, detail, extra)) => (detail, Some(body_json(status, detail, extra))),
            None => (message.as_str(), None),
        };
        // An API error's own `detail` member is already written.
        if !matches!(error, ClientError::Api { .. }) {
            text.push_str(",\"detail\":");
            text.push_str(&serde_json::to_string(detail).unwrap_or_default());
        }
        text.push_str(",\"body\":");
        text.push_str(body.as_deref().unwrap_or("null"));
        text.push_str(",\"retry_at_ms\":");
        match error.retry_at() {
            Some(at) => text.push_str(&at.as_millis().to_string()),
            None => text.push_str("null"),
        }
        text.push_str(",\"sent\":");
        text.push_str(if error.sent() { "true" } else { "false" });
        text.push('}');
        text
    }
}

impl Serialize for ErrorJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawValue::from_string(self.to_json())
            .map_err(S::Error::custom)?
            .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::error::GiveUpReason;
    use crate::client::error_members::ExtraMembers;
    use serde_json::{json, Value};

    fn parsed(error: &ClientError) -> Value {
        serde_json::from_str(&ErrorJson(error).to_json()).unwrap()
    }

    #[test]
    fn error_objects_hold_their_members_and_the_protocols_once() {
        let api = ClientError::Api {
            status: 404,
            detail: "No table orders.".into(),
            extra: ExtraMembers::empty(),
            retry_at: None,
        };
        let text = ErrorJson(&api).to_json();
        // Once at the top, once in the API's body.
        assert_eq!(text.matches("\"status\"").count(), 2, "{text}");
        assert_eq!(
            parsed(&api),
            json!({"type": "api", "status": 404, "detail": "No table orders.", "extra": {},
                   "category": "not_found", "message": "the API answered 404: No table orders.",
                   "body": {"detail": "No table orders.", "status": 404},
                   "retry_at_ms": null, "sent": true})
        );
        let gave_up = ClientError::GaveUp {
            reason: GiveUpReason::MaxAttempts { attempts: 2 },
            attempts: 2,
            last: Box::new(ClientError::Protocol {
                status: 502,
                problem: "no JSON".into(),
            }),
        };
        let object = parsed(&gave_up);
        assert_eq!(object["status"], 502);
        assert_eq!(object["category"], "protocol");
        assert_eq!(object["last"]["status"], 502);
        assert_eq!(
            object["reason"],
            json!({"type": "max_attempts", "attempts": 2})
        );
        let timed_out = ClientError::CallTimedOut { timeout_ms: 50 };
        assert_eq!(
            parsed(&timed_out),
            json!({"type": "call_timed_out", "timeout_ms": 50, "category": "timeout",
                   "message": "the call did not finish within its timeout of 50 ms from its first send \
                               (waits and retries included); raise the call's timeout to wait longer",
                   "status": null, "body": null, "retry_at_ms": null, "sent": true,
                   "detail": "the call did not finish within its timeout of 50 ms from its first send \
                               (waits and retries included); raise the call's timeout to wait longer"})
        );
        // Inside an event, the same object.
        let event = serde_json::to_value(Event::Failed(timed_out.clone())).unwrap();
        assert_eq!(event["error"], parsed(&timed_out));
    }
}
