//! The async store's connection: one multiplexed connection to a server,
//! made again by the store (never in the background) after it broke, or a
//! Redis Cluster connection (routing each call to the master of its slot).
//!
//! The store, not the `redis` crate's connection manager, decides when to
//! reconnect: a probe after an outage opens a new connection and waits for
//! it, so it reports what Redis says now (the manager answered a probe with
//! the error of its previous, background attempt, which kept a restarted
//! server "refusing connections" for one more backoff). A new connection is
//! used by calls only once the store has checked it ([`Link::install`]).

use crate::config::RedisConfig;
use crate::error::StoreError;
use crate::policy::{ConfigError, Policy};
use crate::script::Batch;
use redis::aio::MultiplexedConnection;
use redis::cluster::{ClusterClient, ClusterConfig};
use redis::cluster_async::ClusterConnection;
use redis::{AsyncConnectionConfig, ErrorKind, Script, ServerErrorKind, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// Where the connection goes: parsed when the store is built, connected on
/// first use (inside the caller's Tokio runtime).
pub(crate) enum Target {
    Single(redis::Client),
    Cluster(Box<ClusterClient>),
}

impl Target {
    pub(crate) fn parse(config: &RedisConfig) -> Result<Self, ConfigError> {
        let bad = |e: redis::RedisError| Policy::bad_url(config, &e);
        if config.cluster {
            let client = ClusterClient::builder([config.url.as_str()])
                .retries(1)
                .build()
                .map_err(bad)?;
            return Ok(Target::Cluster(Box::new(client)));
        }
        redis::Client::open(config.url.as_str())
            .map(Target::Single)
            .map_err(bad)
    }

    /// The connection handle; needs a Tokio runtime (the caller checks).
    pub(crate) fn link(&self, config: &RedisConfig) -> Link {
        match self {
            Target::Cluster(client) => {
                let cluster = ClusterConfig::new()
                    .set_connection_timeout(config.connect_timeout)
                    .set_response_timeout(config.io_timeout);
                Link::Cluster(client.get_pending_async_connection_with_config(cluster))
            }
            Target::Single(client) => Link::Single(Arc::new(Single {
                client: client.clone(),
                config: AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(config.connect_timeout))
                    .set_response_timeout(Some(config.io_timeout)),
                current: Mutex::new(None),
                opened: AtomicU64::new(0),
            })),
        }
    }
}

/// One server: the connection calls use, if any.
pub(crate) struct Single {
    client: redis::Client,
    config: AsyncConnectionConfig,
    current: Mutex<Option<Channel>>,
    opened: AtomicU64,
}

/// Where every call goes (cheap to clone: a handle).
#[derive(Clone)]
pub(crate) enum Link {
    /// One server.
    Single(Arc<Single>),
    /// A Redis Cluster: calls go to the master of their keys' slot.
    Cluster(ClusterConnection),
}

/// One connection calls run on (cheap to clone: a handle).
#[derive(Clone)]
pub(crate) struct Channel {
    conn: Conn,
    /// Which connection of the link this is (0 for a cluster).
    serial: u64,
}

#[derive(Clone)]
enum Conn {
    Single(MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl Link {
    /// The connection calls use now; `None` when the single server's
    /// connection is not made yet or broke (the store opens a new one).
    pub(crate) fn current(&self) -> Option<Channel> {
        match self {
            Link::Single(single) => single
                .current
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
            Link::Cluster(cluster) => Some(Channel {
                conn: Conn::Cluster(cluster.clone()),
                serial: 0,
            }),
        }
    }

    /// A new connection to the single server (not used by calls until
    /// [`Link::install`]), awaited: its error is Redis's answer now. A
    /// cluster's connection reconnects its nodes by itself and is returned
    /// as it is. The second member says whether the connection is new.
    pub(crate) async fn open(&self) -> redis::RedisResult<(Channel, bool)> {
        match self {
            Link::Single(single) => {
                let conn = single
                    .client
                    .get_multiplexed_async_connection_with_config(&single.config)
                    .await?;
                let serial = single
                    .opened
                    .fetch_add(1, Ordering::Relaxed)
                    .wrapping_add(1);
                Ok((
                    Channel {
                        conn: Conn::Single(conn),
                        serial,
                    },
                    true,
                ))
            }
            Link::Cluster(cluster) => Ok((
                Channel {
                    conn: Conn::Cluster(cluster.clone()),
                    serial: 0,
                },
                false,
            )),
        }
    }

    /// Makes `channel` the connection calls use.
    pub(crate) fn install(&self, channel: &Channel) {
        if let Link::Single(single) = self {
            *single
                .current
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(channel.clone());
        }
    }

    /// A call on `channel` failed with `error`: a connection that is gone
    /// (reset, closed, dropped) is not used again.
    pub(crate) fn failed(&self, channel: &Channel, error: &redis::RedisError) {
        let gone = error.is_unrecoverable_error()
            || error.is_io_error()
            || error.is_connection_dropped()
            || error.is_connection_refusal();
        if let (Link::Single(single), true) = (self, gone) {
            let mut current = single
                .current
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if current.as_ref().is_some_and(|c| c.serial == channel.serial) {
                *current = None;
            }
        }
    }
}

impl Channel {
    /// One script call for `batch`: `EVALSHA`, and on `NOSCRIPT` (a
    /// restarted server, a failover) `SCRIPT LOAD` and again.
    pub(crate) async fn invoke(
        &mut self,
        batch: &Batch,
        script: &Script,
    ) -> redis::RedisResult<Value> {
        // A plain command (one buffer for every argument) rather than a
        // `ScriptInvocation`, which copies each argument into its own.
        let call = batch.evalsha(script);
        match self.query(&call).await {
            Err(error) if error.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                self.load(script).await?;
                self.query(&call).await
            }
            other => other,
        }
    }

    async fn query(&mut self, call: &redis::Cmd) -> redis::RedisResult<Value> {
        match &mut self.conn {
            Conn::Single(conn) => call.query_async(conn).await,
            Conn::Cluster(cluster) => call.query_async(cluster).await,
        }
    }

    /// Any script call (`EVALSHA`, loading the script on `NOSCRIPT`).
    pub(crate) async fn run(
        &mut self,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> redis::RedisResult<Value> {
        match &mut self.conn {
            Conn::Single(conn) => invocation.invoke_async(conn).await,
            Conn::Cluster(cluster) => invocation.invoke_async(cluster).await,
        }
    }

    /// `SCRIPT LOAD` (on every master of a cluster).
    pub(crate) async fn load(&mut self, script: &Script) -> redis::RedisResult<String> {
        match &mut self.conn {
            Conn::Single(conn) => script.load_async(conn).await,
            Conn::Cluster(cluster) => script.load_async(cluster).await,
        }
    }
}

/// The error of a call made while the single server has no connection
/// (it broke since the call was queued): an outage, which the next probe
/// repairs.
pub(crate) fn not_connected() -> StoreError {
    StoreError::Io("no connection (it broke; the next attempt reconnects)".to_owned())
}
