//! The simulated network between each client and the [`TestServer`]: the
//! faults the configuration injects (per client, in time windows), the
//! delivery of each exchange, and the check that a 429 was not avoidable.
//!
//! [`TestServer`]: crate::testing::TestServer

use super::config::FaultKind;
use super::engine::{Engine, Event};
use crate::client::{CallId, ClientRequest, HttpResponse, Outcome, TransportFailure};
use crate::gate::{GateRequest, GateResponse};
use crate::model::limits::{CLIENT_IP_LIMIT_NAME, CREDENTIAL_LIMIT_NAME};
use crate::model::ErrorBody;
use crate::testing::{Exchange, Fault};
use crate::UnixMillis;
use serde_json::Value;

/// A gate's response as the client's transport would receive it (the bridge
/// between the two roles lives here, where both meet, so `client` never
/// imports `gate`).
impl From<GateResponse> for HttpResponse {
    fn from(response: GateResponse) -> Self {
        Self {
            status: response.status,
            headers: response.headers,
            body: response.body,
        }
    }
}

#[allow(
    clippy::indexing_slicing,
    reason = "client indices are positions in `clients` (one per `config.clients`, never removed); job indices come from setup or `by_call`, positions in that client's `jobs`, which never shrinks"
)]
impl Engine {
    fn pick_fault(&mut self, client: usize, now: UnixMillis) -> Option<FaultKind> {
        let offset = self.offset(now);
        let name = &self.config.clients[client].name;
        let rule = self.config.faults.iter().find(|rule| {
            (rule.from_ms..rule.until_ms).contains(&offset)
                && rule.client.as_ref().is_none_or(|only| only == name)
        })?;
        let (per_mille, kind) = (rule.per_mille, rule.kind);
        let draw = crate::client::uniform_inclusive(&mut self.random, 999);
        (draw < u64::from(per_mille)).then_some(kind)
    }

    pub(super) fn transmit(
        &mut self,
        client: usize,
        call: CallId,
        request: &ClientRequest,
        target: String,
        now: UnixMillis,
    ) {
        let gate_request = GateRequest {
            method: request.method.clone(),
            target: target.into_bytes(),
            headers: request
                .headers
                .iter()
                .map(|(name, value)| (name.clone(), value.as_bytes().to_vec()))
                .collect(),
            client_ip: self.clients[client].ip.clone(),
        };
        let fault = self.pick_fault(client, now).map(|kind| match kind {
            FaultKind::ServerError { status } => Fault::Status(status),
            FaultKind::Connect => Fault::Transport(TransportFailure::Connect),
            FaultKind::Timeout => Fault::Transport(TransportFailure::Timeout),
        });
        let exchange = self.server.serve_with_fault(&gate_request, now, fault);
        let deliver_at = exchange.deliver_at().max(now.saturating_add(1));
        let (outcome, injected) = match exchange {
            Exchange::Response {
                status,
                headers,
                body,
                injected,
                ..
            } => (
                Outcome::Response(HttpResponse {
                    status,
                    headers,
                    body,
                }),
                injected,
            ),
            Exchange::Failure { failure, .. } => (Outcome::Transport(failure), true),
        };
        if injected {
            self.faults_injected = self.faults_injected.saturating_add(1);
        }
        self.schedule(
            deliver_at,
            Event::Deliver {
                client,
                call,
                outcome,
                injected,
            },
        );
    }

    pub(super) fn check_429(&mut self, client: usize, job: usize, response: &HttpResponse) {
        let summary = &mut self.clients[client].summary;
        summary.responses_429 = summary.responses_429.saturating_add(1);
        let limit = ErrorBody::from_slice(&response.body)
            .ok()
            .and_then(|body| {
                body.extra
                    .get("limit")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let me = &self.clients[client];
        let shared = self.clients.iter().enumerate().any(|(other, them)| {
            other != client
                && match limit.as_str() {
                    CREDENTIAL_LIMIT_NAME => them
                        .credential_ids
                        .iter()
                        .any(|id| me.credential_ids.contains(id)),
                    CLIENT_IP_LIMIT_NAME => them.ip == me.ip,
                    _ => them.users.iter().any(|user| me.users.contains(user)),
                }
        });
        if !shared {
            let summary = &mut self.clients[client].summary;
            summary.avoidable_429 = summary.avoidable_429.saturating_add(1);
            self.violations.push(format!(
                "client {client} job {job} received an avoidable 429 from limit {limit:?}, which no other client shares"
            ));
        }
    }
}
