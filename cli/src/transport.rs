//! The blocking HTTP transport (ureq, http and https via rustls): sends one
//! [`ClientRequest`] and returns the core's [`Outcome`] — the response as
//! received, whatever its status, or precisely how the attempt failed.

use acd_core::client::{ClientRequest, HttpResponse, Outcome, TransportFailure};
use std::io::{ErrorKind, Read};
use std::time::Duration;
use ureq::{Agent, Timeout};

/// One HTTP agent (its connection pool is reused across requests and
/// shared by the threads that send concurrently).
#[derive(Clone)]
pub struct Transport {
    agent: Agent,
    /// The core's `ClientConfig::max_body_bytes`: at most one byte more
    /// than this is read, so the core can tell the body is too large.
    max_body_bytes: u64,
}

impl Transport {
    /// An agent that returns every status as a response, follows no
    /// redirects, reads at most `max_body_bytes` + 1 bytes of a body, and
    /// goes through `proxy` when one is given (and through none otherwise).
    /// Each exchange's deadline is the one [`Transport::send`] is given.
    pub fn new(proxy: Option<ureq::Proxy>, max_body_bytes: u64) -> Self {
        let config = Agent::config_builder()
            .proxy(proxy)
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .user_agent(acd_core::client::USER_AGENT)
            .build();
        Self {
            agent: config.into(),
            max_body_bytes,
        }
    }

    /// Sends `request`, giving up on it `within` from now (connecting,
    /// headers and body included): the response as received (its body cut
    /// one byte past the bound, or left unread when its Content-Length is
    /// above it; the core's `check_body_size` decides), or how the attempt
    /// failed.
    pub fn send(&self, request: &ClientRequest, within: Duration) -> Outcome {
        let mut builder = ureq::http::Request::builder()
            .method(request.method.as_str())
            .uri(request.url.as_str());
        for (name, value) in &request.headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = request.body.clone().unwrap_or_default();
        let Ok(http_request) = builder.body(body) else {
            // The core built a request the http crate refuses (a bad URL or
            // header byte): it never left this machine.
            return Outcome::Transport(TransportFailure::Connect);
        };
        let within = within.max(Duration::from_millis(1));
        let http_request = self
            .agent
            .configure_request(http_request)
            .timeout_global(Some(within))
            .build();
        match self.agent.run(http_request) {
            Ok(response) => self.read_response(response),
            Err(error) => Outcome::Transport(failure_of(&error)),
        }
    }

    fn read_response(&self, mut response: ureq::http::Response<ureq::Body>) -> Outcome {
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect();
        let announced = response
            .headers()
            .get("content-length")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        let mut body = Vec::new();
        if announced.is_none_or(|length| length <= self.max_body_bytes) {
            let read = response
                .body_mut()
                .as_reader()
                .take(self.max_body_bytes.saturating_add(1))
                .read_to_end(&mut body);
            if let Err(error) = read {
                let failure = failure_of(&ureq::Error::from(error));
                // The request was sent and answered: a broken body is never "never sent".
                return Outcome::Transport(if failure.never_sent() {
                    TransportFailure::Interrupted
                } else {
                    failure
                });
            }
        }
        Outcome::Response(HttpResponse {
            status,
            headers,
            body,
        })
    }
}

/// How a ureq error maps to the core's failure kinds (the facts: never
/// sent, or sent and the answer lost; see `docs/driver-protocol.md`).
pub fn failure_of(error: &ureq::Error) -> TransportFailure {
    match error {
        ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => {
            TransportFailure::ConnectTimeout
        }
        ureq::Error::Timeout(_) => TransportFailure::Timeout,
        ureq::Error::HostNotFound => TransportFailure::Dns,
        ureq::Error::ConnectionFailed
        | ureq::Error::BadUri(_)
        | ureq::Error::Http(_)
        | ureq::Error::Tls(_)
        | ureq::Error::Rustls(_)
        | ureq::Error::Pem(_)
        | ureq::Error::InvalidProxyUrl
        | ureq::Error::ConnectProxyFailed(_) => TransportFailure::Connect,
        ureq::Error::Protocol(_) | ureq::Error::LargeResponseHeader(..) => {
            TransportFailure::Protocol
        }
        ureq::Error::Io(io) => match io.kind() {
            ErrorKind::ConnectionRefused => TransportFailure::Refused,
            ErrorKind::AddrNotAvailable
            | ErrorKind::NotFound
            | ErrorKind::HostUnreachable
            | ErrorKind::NetworkUnreachable => TransportFailure::Connect,
            ErrorKind::TimedOut | ErrorKind::WouldBlock => TransportFailure::Timeout,
            ErrorKind::ConnectionReset | ErrorKind::BrokenPipe | ErrorKind::ConnectionAborted => {
                TransportFailure::Reset
            }
            _ => TransportFailure::Interrupted,
        },
        _ => TransportFailure::Interrupted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_named_by_their_facts() {
        let io = |kind| ureq::Error::Io(std::io::Error::new(kind, "x"));
        assert_eq!(
            failure_of(&io(ErrorKind::ConnectionRefused)),
            TransportFailure::Refused
        );
        assert_eq!(
            failure_of(&io(ErrorKind::ConnectionReset)),
            TransportFailure::Reset
        );
        assert_eq!(
            failure_of(&io(ErrorKind::UnexpectedEof)),
            TransportFailure::Interrupted
        );
        assert_eq!(
            failure_of(&io(ErrorKind::TimedOut)),
            TransportFailure::Timeout
        );
        assert_eq!(
            failure_of(&ureq::Error::Timeout(Timeout::Connect)),
            TransportFailure::ConnectTimeout
        );
        assert_eq!(
            failure_of(&ureq::Error::Timeout(Timeout::RecvResponse)),
            TransportFailure::Timeout
        );
        assert_eq!(
            failure_of(&ureq::Error::HostNotFound),
            TransportFailure::Dns
        );
        assert_eq!(
            failure_of(&ureq::Error::LargeResponseHeader(1, 1)),
            TransportFailure::Protocol
        );
    }
}
