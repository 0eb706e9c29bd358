//! [`TestServer`]: a dataset served through a real [`Gate`] in virtual
//! time, with latency, injected faults and a request log.

use super::config::TestServerConfig;
use super::exchange::{gate_request, Exchange};
use super::faults::{Fault, FaultContext, FaultHook, FaultRules};
use super::store::{Answer, Store};
use super::TestServerError;
use crate::client::TransportFailure;
use crate::gate::{Admitted, Decision, Gate, GateRequest, GateResponse, ResourceAnswer};
use crate::limit::{self, LimitAlgorithm, LimiterConfig, RateLimiter};
use crate::model::ErrorBody;
use crate::UnixMillis;
use serde::Serialize;
use std::sync::Arc;

/// One request the server received, as its log keeps it (never headers,
/// which hold the credential).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// When it arrived, Unix ms.
    pub at: UnixMillis,
    /// The method.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The raw query (empty when there is none).
    pub query: String,
    /// The status answered, or `null` for a transport failure.
    pub status: Option<u16>,
    /// The transport failure injected, if any.
    pub failure: Option<TransportFailure>,
    /// Whether a fault replaced the server's answer.
    pub injected: bool,
}

/// A dataset served through a real gate in virtual time.
///
/// Every request goes through [`Gate::decide`]'s steps (route, credential,
/// scope, rate limits, validation) at the instant the caller gives; an
/// admitted one is answered from the dataset (tables page by page,
/// connections, runs with their lifecycle). Faults come from the hook, then
/// the rules; each answer is due `latency_ms` after its request.
pub struct TestServer {
    gate: Gate,
    limiter: Arc<dyn RateLimiter>,
    store: Store,
    start: Option<UnixMillis>,
    client_ip: String,
    latency_ms: u64,
    timeout_ms: u64,
    date_header: bool,
    rules: FaultRules,
    hook: Option<FaultHook>,
    log: Vec<LogEntry>,
    log_limit: usize,
    log_dropped: u64,
    received: u64,
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("received", &self.received)
            .field("start", &self.start)
            .field("latency_ms", &self.latency_ms)
            .finish_non_exhaustive()
    }
}

impl TestServer {
    /// A server for `config` (its gate configuration, limits and fault
    /// rules checked).
    pub fn new(config: TestServerConfig) -> Result<Self, TestServerError> {
        let gate_config = config.gate_with_limits()?;
        for (position, rule) in config.faults.iter().enumerate() {
            if let Some(operation) = &rule.operation {
                if gate_config.catalogue.get(operation).is_none() {
                    let known: Vec<&str> = gate_config
                        .catalogue
                        .operations()
                        .iter()
                        .map(|operation| operation.id.as_str())
                        .collect();
                    return Err(TestServerError::Config {
                        problem: format!(
                            "faults[{position}]: the gate serves no operation {operation:?}; it serves {}",
                            known.join(", ")
                        ),
                    });
                }
            }
        }
        let rules =
            FaultRules::new(config.faults, config.seed).map_err(|(position, problem)| {
                TestServerError::Config {
                    problem: format!("faults[{position}]: {problem}"),
                }
            })?;
        let limiter = limit::in_memory(LimitAlgorithm::default(), LimiterConfig::default());
        let gate = Gate::new(
            gate_config,
            Arc::new(config.credentials),
            Arc::clone(&limiter),
        )
        .map_err(|error| TestServerError::Config {
            problem: error.to_string(),
        })?;
        Ok(Self {
            gate,
            limiter,
            store: Store::new(config.dataset, config.new_runs),
            start: config.start_ms,
            client_ip: config.client_ip,
            latency_ms: config.latency_ms,
            timeout_ms: config.timeout_ms,
            date_header: config.date_header,
            rules,
            hook: None,
            log: Vec::new(),
            log_limit: config.log_limit,
            log_dropped: 0,
            received: 0,
        })
    }

    /// A server from its JSON configuration (see [`super::config`]).
    pub fn from_json(json: &[u8]) -> Result<Self, TestServerError> {
        Self::new(TestServerConfig::from_json(json)?)
    }

    /// Sets the Rust fault hook, consulted before the rules for every
    /// request (builder form).
    #[must_use]
    pub fn with_fault_hook(
        mut self,
        hook: impl FnMut(&FaultContext<'_>) -> Option<Fault> + Send + 'static,
    ) -> Self {
        self.hook = Some(Box::new(hook));
        self
    }

    /// The gate the server answers with.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// One exchange as a host's transport holds it: the method, the URL
    /// (absolute, or a target starting with `/`), the headers as a block
    /// (`Name: value` per line) and the body (the gate reads none), at `now`.
    pub fn exchange(
        &mut self,
        method: &str,
        url: &str,
        header_block: &str,
        body: Option<&[u8]>,
        now: UnixMillis,
    ) -> Result<Exchange, TestServerError> {
        let _ = body;
        let request = gate_request(method, url, header_block, &self.client_ip)?;
        Ok(self.serve(&request, now))
    }

    /// Serves `request` at `now`, its fault chosen by the hook, then the rules.
    pub fn serve(&mut self, request: &GateRequest, now: UnixMillis) -> Exchange {
        self.serve_inner(request, now, None)
    }

    /// Serves `request` at `now` with `fault` (or none) chosen by the
    /// caller; the hook and the rules are not consulted. For harnesses that
    /// choose faults themselves, such as the simulation.
    pub fn serve_with_fault(
        &mut self,
        request: &GateRequest,
        now: UnixMillis,
        fault: Option<Fault>,
    ) -> Exchange {
        self.serve_inner(request, now, Some(fault))
    }

    fn serve_inner(
        &mut self,
        request: &GateRequest,
        now: UnixMillis,
        chosen: Option<Option<Fault>>,
    ) -> Exchange {
        let start = *self.start.get_or_insert(now);
        self.received = self.received.saturating_add(1);
        let target = String::from_utf8_lossy(&request.target).into_owned();
        let (path, query) = target.split_once('?').unwrap_or((&target, ""));
        let pending = self.gate.prepare(request, now);
        let fault = match chosen {
            Some(fault) => fault,
            None => {
                let operation = pending.operation_id();
                let context = FaultContext {
                    method: &request.method,
                    path,
                    operation,
                    now,
                    sequence: self.received,
                };
                let hooked = self.hook.as_mut().and_then(|hook| hook(&context));
                hooked.or_else(|| self.rules.pick(operation, now.saturating_since(start)))
            }
        };
        let exchange = if fault == Some(Fault::Transport(TransportFailure::Connect)) {
            self.failure(TransportFailure::Connect, now)
        } else {
            let (response, injected) = match pending.run(&*self.limiter, now) {
                Decision::Reply(response) => (response, false),
                Decision::FetchResource(admitted) => match fault {
                    Some(Fault::Status(status)) => (
                        backend_error(
                            *admitted,
                            status,
                            "The backend failed (injected by the test server).",
                        ),
                        true,
                    ),
                    _ => (self.answer(*admitted, start, now), false),
                },
            };
            match fault {
                Some(Fault::Transport(failure)) => self.failure(failure, now),
                _ => self.response(response, injected, now),
            }
        };
        self.note(now, &request.method, path, query, &exchange);
        exchange
    }

    fn answer(&mut self, admitted: Admitted, start: UnixMillis, now: UnixMillis) -> GateResponse {
        match self.store.answer(&admitted, start, now) {
            Answer::Resource(answer) => admitted.respond(answer),
            Answer::Unavailable(sentence) => backend_error(admitted, 503, &sentence),
        }
    }

    fn failure(&self, failure: TransportFailure, now: UnixMillis) -> Exchange {
        let delay = match failure {
            TransportFailure::Timeout => self.timeout_ms,
            _ => self.latency_ms,
        };
        Exchange::Failure {
            failure,
            deliver_at: now.saturating_add(delay),
        }
    }

    fn response(&self, mut response: GateResponse, injected: bool, now: UnixMillis) -> Exchange {
        if self.date_header {
            if let Some(date) = crate::http_date::format_http_date(now.as_millis() / 1_000) {
                response.headers.push(("Date".into(), date));
            }
        }
        Exchange::Response {
            status: response.status,
            headers: response.headers,
            body: response.body,
            deliver_at: now.saturating_add(self.latency_ms),
            injected,
        }
    }

    fn note(
        &mut self,
        now: UnixMillis,
        method: &str,
        path: &str,
        query: &str,
        exchange: &Exchange,
    ) {
        if self.log.len() >= self.log_limit {
            self.log_dropped = self.log_dropped.saturating_add(1);
            return;
        }
        let (status, failure, injected) = match exchange {
            Exchange::Response {
                status, injected, ..
            } => (Some(*status), None, *injected),
            Exchange::Failure { failure, .. } => (None, Some(*failure), true),
        };
        self.log.push(LogEntry {
            at: now,
            method: method.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
            status,
            failure,
            injected,
        });
    }

    /// The requests received, in order (at most `log_limit` of them).
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// The log as a JSON array of `{"at", "method", "path", "query",
    /// "status", "failure", "injected"}`.
    pub fn log_json(&self) -> String {
        serde_json::to_string(&self.log).unwrap_or_else(|_| "[]".into())
    }

    /// The status of every logged response, in order (transport failures
    /// have none and are left out).
    pub fn statuses(&self) -> Vec<u16> {
        self.log.iter().filter_map(|entry| entry.status).collect()
    }

    /// How many requests the server received.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// How many requests came after the log was full (counted, not kept).
    pub fn log_dropped(&self) -> u64 {
        self.log_dropped
    }
}

/// The admitted request's response with `status` and an `Error` body
/// saying `detail`; the gate's headers (rate limits) are kept.
fn backend_error(admitted: Admitted, status: u16, detail: &str) -> GateResponse {
    let mut response = admitted.respond(ResourceAnswer::NotFound);
    response.status = status;
    response.body = ErrorBody::new(status, detail).to_bytes();
    response
}
