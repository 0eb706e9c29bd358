//! The async store's sender: decisions queued by concurrent callers leave
//! as few script calls as possible. A call carries every decision waiting
//! when it leaves (up to `RedisConfig::max_batch`), and at most
//! [`IN_FLIGHT`] calls are under way at once on the multiplexed connection,
//! so the busier the store, the larger each call: one `EVALSHA` and one
//! `INCRBY` per key for many decisions. An idle store sends a
//! lone decision at once (no waiting for company).

use crate::error::StoreError;
use crate::link::{not_connected, Link};
use crate::reply::Outcome;
use crate::script::{Batch, Prepared};
use acd_core::limit::LimitAlgorithm;
use redis::Script;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot, Semaphore};

/// Script calls under way at once.
pub(crate) const IN_FLIGHT: usize = 4;

/// One queued decision and where its outcome goes.
pub(crate) struct Job {
    pub(crate) prepared: Prepared,
    pub(crate) reply: oneshot::Sender<Result<Outcome, StoreError>>,
}

/// What every call needs.
pub(crate) struct Sender {
    pub(crate) link: Link,
    pub(crate) script: Script,
    pub(crate) algorithm: LimitAlgorithm,
    pub(crate) grace_ms: u64,
    pub(crate) io_timeout_ms: u64,
    pub(crate) max_batch: usize,
}

impl Sender {
    /// Starts the sending task on the current Tokio runtime; it ends when
    /// every handle to the queue is gone.
    pub(crate) fn spawn(self) -> mpsc::UnboundedSender<Job> {
        let (queue, jobs) = mpsc::unbounded_channel();
        tokio::spawn(self.run(jobs));
        queue
    }

    async fn run(self, mut jobs: mpsc::UnboundedReceiver<Job>) {
        let slots = Arc::new(Semaphore::new(IN_FLIGHT));
        let sender = Arc::new(self);
        while let Some(first) = jobs.recv().await {
            // Wait for a free call slot; decisions queue up meanwhile.
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return;
            };
            let mut batch = Vec::with_capacity(jobs.len().saturating_add(1).min(sender.max_batch));
            batch.push(first);
            while batch.len() < sender.max_batch {
                match jobs.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            let sender = sender.clone();
            tokio::spawn(async move {
                sender.send(batch).await;
                drop(slot);
            });
        }
    }

    async fn send(&self, jobs: Vec<Job>) {
        let checks = jobs.iter().map(|job| job.prepared.check_count()).sum();
        let mut batch = Batch::with_capacity(self.algorithm, self.grace_ms, jobs.len(), checks);
        let mut replies = Vec::with_capacity(jobs.len());
        for job in jobs {
            batch.push_owned(job.prepared);
            replies.push(job.reply);
        }
        let outcomes = match self.link.current() {
            None => Err(not_connected()),
            Some(mut channel) => match channel.invoke(&batch, &self.script).await {
                Ok(reply) => batch.outcomes(&reply),
                Err(error) => {
                    self.link.failed(&channel, &error);
                    Err(StoreError::from_redis(&error, self.io_timeout_ms))
                }
            },
        };
        match outcomes {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    // A caller that gave up waiting is gone; nothing to do.
                    let _ = reply.send(batch.readable(outcome));
                }
            }
            Err(error) => {
                for reply in replies {
                    let _ = reply.send(Err(error.clone()));
                }
            }
        }
    }
}
