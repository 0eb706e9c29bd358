//! The blocking HTTP transport (ureq, http and https via rustls): sends one
//! [`ClientRequest`] and returns the core's [`Outcome`] — the response as
//! received, whatever its status, or precisely how the attempt failed.

use acd_core::client::{ClientRequest, HttpResponse, Outcome, TransportFailure};
use std::io::ErrorKind;
use std::time::Duration;
use ureq::{Agent, Timeout};

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one exchange may take once connected.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest response body read: 64 MiB, far above the largest
/// legitimate page (5,000 table records). A body that passes it ends the
/// command with [`BodyTooLarge`] as soon as it does, without reading the
/// rest. (The one place the bound lives; a per-client maximum in the
/// core's configuration would replace it.)
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;

/// A response whose body passed [`MAX_BODY_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {status} response's body is larger than the {limit} bytes this client reads; \
     ask for less (e.g. a smaller --limit or --page-size)"
)]
pub struct BodyTooLarge {
    /// The response's status.
    pub status: u16,
    /// The bound, in bytes.
    pub limit: u64,
}

/// One HTTP agent (its connection pool is reused across requests).
pub struct Transport {
    agent: Agent,
}

impl Transport {
    /// An agent that returns every status as a response, follows no
    /// redirects, times out instead of hanging, and goes through `proxy`
    /// when one is given (and through none otherwise).
    pub fn new(proxy: Option<ureq::Proxy>) -> Self {
        let config = Agent::config_builder()
            .proxy(proxy)
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_per_call(Some(EXCHANGE_TIMEOUT))
            .user_agent(concat!("acd/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: config.into(),
        }
    }

    /// Sends `request`: the outcome, or the body passed the bound.
    pub fn send(&self, request: &ClientRequest) -> Result<Outcome, BodyTooLarge> {
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
            return Ok(Outcome::Transport(TransportFailure::Connect));
        };
        match self.agent.run(http_request) {
            Ok(response) => read_response(response),
            Err(error) => Ok(Outcome::Transport(failure_of(&error))),
        }
    }
}

fn read_response(mut response: ureq::http::Response<ureq::Body>) -> Result<Outcome, BodyTooLarge> {
    let status = response.status().as_u16();
    let too_large = BodyTooLarge {
        status,
        limit: MAX_BODY_BYTES,
    };
    let announced = response
        .headers()
        .get("content-length")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    if announced.is_some_and(|length| length > MAX_BODY_BYTES) {
        return Err(too_large);
    }
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
    match response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_BYTES)
        .read_to_vec()
    {
        Ok(body) => Ok(Outcome::Response(HttpResponse {
            status,
            headers,
            body,
        })),
        Err(ureq::Error::BodyExceedsLimit(_)) => Err(too_large),
        Err(error) => Ok(Outcome::Transport(match failure_of(&error) {
            // The request was sent and answered: a broken body is never "connect".
            TransportFailure::Connect => TransportFailure::Interrupted,
            other => other,
        })),
    }
}

/// How a ureq error maps to the core's failures: only what provably
/// happened before the request left is `Connect`.
pub fn failure_of(error: &ureq::Error) -> TransportFailure {
    match error {
        ureq::Error::Timeout(Timeout::Resolve | Timeout::Connect) => TransportFailure::Connect,
        ureq::Error::Timeout(_) => TransportFailure::Timeout,
        ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::BadUri(_)
        | ureq::Error::Http(_)
        | ureq::Error::Tls(_)
        | ureq::Error::Rustls(_)
        | ureq::Error::Pem(_)
        | ureq::Error::InvalidProxyUrl => TransportFailure::Connect,
        ureq::Error::Io(io) => match io.kind() {
            ErrorKind::ConnectionRefused
            | ErrorKind::AddrNotAvailable
            | ErrorKind::NotFound
            | ErrorKind::HostUnreachable
            | ErrorKind::NetworkUnreachable => TransportFailure::Connect,
            ErrorKind::TimedOut | ErrorKind::WouldBlock => TransportFailure::Timeout,
            _ => TransportFailure::Interrupted,
        },
        _ => TransportFailure::Interrupted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_before_sending_are_connect() {
        let io = |kind| ureq::Error::Io(std::io::Error::new(kind, "x"));
        assert_eq!(
            failure_of(&io(ErrorKind::ConnectionRefused)),
            TransportFailure::Connect
        );
        assert_eq!(
            failure_of(&io(ErrorKind::ConnectionReset)),
            TransportFailure::Interrupted
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
            TransportFailure::Connect
        );
        assert_eq!(
            failure_of(&ureq::Error::Timeout(Timeout::RecvResponse)),
            TransportFailure::Timeout
        );
        assert_eq!(
            failure_of(&ureq::Error::HostNotFound),
            TransportFailure::Connect
        );
    }
}
