//! The dispatcher: one tokio task that sends due attempts over HTTP/1.1
//! (hyper-util's client; redirects are never followed, a 3xx is a failure)
//! and reports their outcomes to the planner. Every attempt runs on a task
//! of its own, so a slow endpoint delays nobody else; with a manual clock
//! the attempts planned at one instant are awaited before time moves on.

use super::{Fault, Step};
use crate::handler::App;
use acd_core::webhooks::{AttemptOutcome, DeliveryTransmit, DEFAULT_ATTEMPT_TIMEOUT_MS};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;
use std::time::Duration;

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// The longest a wait lasts without a wake (the system clock may jump).
const MAX_WAIT: Duration = Duration::from_secs(1);

fn client() -> HttpClient {
    let mut connector = HttpConnector::new();
    connector.set_connect_timeout(Some(Duration::from_millis(DEFAULT_ATTEMPT_TIMEOUT_MS)));
    Client::builder(TokioExecutor::new()).build(connector)
}

async fn post(
    client: &HttpClient,
    transmit: &DeliveryTransmit,
    headers: &[(String, String)],
) -> AttemptOutcome {
    let mut request = hyper::Request::post(transmit.url.as_str());
    for (name, value) in headers {
        request = request.header(name.as_str(), value.as_str());
    }
    request = request.header("user-agent", "acd-sandbox-webhooks");
    let request = match request.body(Full::new(Bytes::copy_from_slice(&transmit.body))) {
        Ok(request) => request,
        Err(error) => return AttemptOutcome::Error(format!("cannot build the request: {error}")),
    };
    let timeout = Duration::from_millis(DEFAULT_ATTEMPT_TIMEOUT_MS);
    match tokio::time::timeout(timeout, client.request(request)).await {
        Ok(Ok(response)) => AttemptOutcome::Response(response.status().as_u16()),
        Ok(Err(error)) => AttemptOutcome::Error(format!("the request failed: {error}")),
        Err(_) => AttemptOutcome::Error("no answer within the timeout".to_owned()),
    }
}

/// The signature header of `headers` replaced by one made with a random
/// secret (the wrong-signature fault).
fn wrong_signature(transmit: &DeliveryTransmit) -> Vec<(String, String)> {
    let mut key = [0u8; 32];
    key.iter_mut().for_each(|b| *b = fastrand::u8(..));
    let wrong = acd_core::webhooks::Secret::from_entropy(key);
    let timestamp = transmit
        .headers
        .iter()
        .find(|(name, _)| name == acd_core::webhooks::HEADER_TIMESTAMP)
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    transmit
        .headers
        .iter()
        .map(|(name, value)| {
            if name == acd_core::webhooks::HEADER_SIGNATURE {
                let signature =
                    acd_core::webhooks::sign(&wrong, &transmit.event_id, timestamp, &transmit.body);
                (name.clone(), signature)
            } else {
                (name.clone(), value.clone())
            }
        })
        .collect()
}

async fn attempt(
    app: Arc<App>,
    client: HttpClient,
    transmit: DeliveryTransmit,
    at: u64,
    manual: bool,
) {
    let Some(hooks) = app.webhooks() else {
        return;
    };
    let fault = hooks.draw_fault();
    let mut headers = transmit.headers.clone();
    match fault {
        Some((Fault::Delayed, ms)) => tokio::time::sleep(Duration::from_millis(ms)).await,
        Some((Fault::OutOfOrder, ms)) => {
            tokio::time::sleep(Duration::from_millis(ms.saturating_mul(2))).await;
        }
        Some((Fault::WrongSignature, _)) => headers = wrong_signature(&transmit),
        _ => {}
    }
    let mut outcome = post(&client, &transmit, &headers).await;
    if matches!(fault, Some((Fault::Duplicate, _))) {
        // The copy's answer is not the attempt's: the first one counts.
        let _ = post(&client, &transmit, &headers).await;
    }
    let now = if manual { at } else { app.clock().now_ms() };
    if let AttemptOutcome::Error(reason) = &outcome {
        if reason.starts_with("no answer") {
            // Reported at the deadline: the planner records a timeout.
            outcome = AttemptOutcome::Response(0);
            hooks.finish(
                transmit.attempt,
                outcome,
                transmit.deadline.as_millis().saturating_add(1).max(now),
                fault.map(|f| f.0),
            );
            return;
        }
    }
    hooks.finish(transmit.attempt, outcome, now, fault.map(|f| f.0));
}

/// Runs until the process ends: turns due run transitions into events and
/// sends due attempts on the app's clock.
pub async fn run(app: Arc<App>) {
    let Some(hooks) = app.webhooks() else {
        return;
    };
    let client = client();
    loop {
        let generation = hooks.generation();
        let manual = app.clock().is_manual();
        let now = app.clock().now_ms();
        match hooks.step(now, manual) {
            Step::Send(at, sends) => {
                let mut tasks = Vec::new();
                for transmit in sends {
                    tasks.push(tokio::spawn(attempt(
                        app.clone(),
                        client.clone(),
                        transmit,
                        at,
                        manual,
                    )));
                }
                if manual {
                    for task in tasks {
                        let _ = task.await;
                    }
                }
            }
            Step::Wait(next) => {
                hooks.publish_caught_up(now, generation);
                let wait = match next {
                    Some(due) if !manual => {
                        Duration::from_millis(due.saturating_sub(now)).min(MAX_WAIT)
                    }
                    _ => MAX_WAIT,
                };
                tokio::select! {
                    () = hooks.woken() => {}
                    () = tokio::time::sleep(wait) => {}
                }
            }
        }
    }
}
