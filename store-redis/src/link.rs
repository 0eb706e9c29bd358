//! The async store's connection: one multiplexed connection to a server
//! (reconnected by the `redis` crate's connection manager) or a Redis
//! Cluster connection (routing each call to the master of its slot).

use crate::config::RedisConfig;
use crate::error::StoreError;
use crate::policy::{ConfigError, Policy};
use crate::script::Batch;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::cluster::{ClusterClient, ClusterConfig};
use redis::cluster_async::ClusterConnection;
use redis::{ErrorKind, Script, ServerErrorKind, Value};

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
    pub(crate) fn link(&self, config: &RedisConfig) -> Result<Link, StoreError> {
        let failed = |e: redis::RedisError| StoreError::Connect(e.to_string());
        match self {
            Target::Cluster(client) => {
                let cluster = ClusterConfig::new()
                    .set_connection_timeout(config.connect_timeout)
                    .set_response_timeout(config.io_timeout);
                Ok(Link::Cluster(
                    client.get_pending_async_connection_with_config(cluster),
                ))
            }
            Target::Single(client) => {
                // Reconnection is paced by the store's own backoff (one
                // probe per wait), so the manager tries once per call.
                let manager = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(config.connect_timeout))
                    .set_response_timeout(Some(config.io_timeout))
                    .set_number_of_retries(0);
                ConnectionManager::new_lazy_with_config(client.clone(), manager)
                    .map(Link::Single)
                    .map_err(failed)
            }
        }
    }
}

/// The connection every call goes through (cheap to clone: a handle).
#[derive(Clone)]
pub(crate) enum Link {
    /// One server, reconnected by the `redis` crate's manager.
    Single(ConnectionManager),
    /// A Redis Cluster: calls go to the master of their keys' slot.
    Cluster(ClusterConnection),
}

impl Link {
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
        match self {
            Link::Single(manager) => call.query_async(manager).await,
            Link::Cluster(cluster) => call.query_async(cluster).await,
        }
    }

    /// Any script call (`EVALSHA`, loading the script on `NOSCRIPT`).
    pub(crate) async fn run(
        &mut self,
        invocation: &redis::ScriptInvocation<'_>,
    ) -> redis::RedisResult<Value> {
        match self {
            Link::Single(manager) => invocation.invoke_async(manager).await,
            Link::Cluster(cluster) => invocation.invoke_async(cluster).await,
        }
    }

    /// `SCRIPT LOAD` (on every master of a cluster).
    pub(crate) async fn load(&mut self, script: &Script) -> redis::RedisResult<String> {
        match self {
            Link::Single(manager) => script.load_async(manager).await,
            Link::Cluster(cluster) => script.load_async(cluster).await,
        }
    }
}
