//! What can go wrong between a gate and its Redis, as one flat error type.

/// Why the Redis store could not decide a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// No connection could be made (refused, unreachable, handshake failed
    /// or timed out).
    #[error("cannot connect: {0}")]
    Connect(String),
    /// Redis did not answer within the I/O timeout.
    #[error("no answer within {0} ms")]
    Timeout(u64),
    /// The connection broke (reset, closed, I/O error).
    #[error("connection lost: {0}")]
    Io(String),
    /// Redis answered with an error (e.g. `LOADING` after a restart,
    /// `CROSSSLOT` in a cluster without the hash tag, out of memory).
    #[error("Redis answered an error: {0}")]
    Server(String),
    /// The answer was not what the script returns, or a key holds a state
    /// the script cannot read.
    #[error("unexpected answer: {0}")]
    Garbage(String),
    /// A time or window too large for the script's exact arithmetic.
    #[error("{0}")]
    OutOfDomain(String),
    /// The store is backing off after failures; no attempt was made.
    #[error("backing off after a failure; next attempt in {0} ms")]
    BackingOff(u64),
}

impl StoreError {
    /// Whether the error says something about the server or the connection
    /// (back off and reconnect) rather than about one request (a key holding
    /// garbage, a time out of range).
    pub fn is_outage(&self) -> bool {
        !matches!(self, StoreError::OutOfDomain(_)) && !self.is_bad_state()
    }

    /// Whether a key of this request holds a state the script refused to read.
    pub fn is_bad_state(&self) -> bool {
        matches!(self, StoreError::Garbage(why) if why.starts_with("ACDGARBAGE"))
    }

    /// Classifies an error of the `redis` crate.
    pub(crate) fn from_redis(error: &redis::RedisError, io_timeout_ms: u64) -> Self {
        if error.is_timeout() {
            return StoreError::Timeout(io_timeout_ms);
        }
        if error.code() == Some("ACDGARBAGE") {
            return StoreError::Garbage(format!(
                "ACDGARBAGE {}",
                error.detail().unwrap_or("a key holds an unreadable state")
            ));
        }
        if error.is_connection_refusal() {
            return StoreError::Connect(error.to_string());
        }
        if error.is_io_error() || error.is_connection_dropped() || error.is_unrecoverable_error() {
            return StoreError::Io(error.to_string());
        }
        match error.kind() {
            redis::ErrorKind::Parse | redis::ErrorKind::UnexpectedReturnType => {
                StoreError::Garbage(error.to_string())
            }
            _ if error.code().is_some() => StoreError::Server(error.to_string()),
            _ => StoreError::Garbage(error.to_string()),
        }
    }
}
