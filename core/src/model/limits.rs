//! The spec's rate limits as facts: their names and quotas, the bounds a
//! quota must keep, which limits apply to a request (from DECODED values),
//! and the order that names the tightest limit.
//!
//! The gate charges exactly the limits [`LimitSettings::applicable`]
//! returns; the client throttle and the simulation model the same list, so
//! the two roles can never disagree about whom a request counts against.

use super::operation::{CredentialPolicy, LimitSubject, Operation};
use super::quota::{LimitCheck, Quota};
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// Name of the per-credential limit (used in limit keys and 429 bodies).
pub const CREDENTIAL_LIMIT_NAME: &str = "credential";
/// Name of the per-client-IP limit of unauthenticated traffic.
pub const CLIENT_IP_LIMIT_NAME: &str = "client_ip";
/// Name of the extra per-user limit on table reads.
pub const USER_TABLE_READS_NAME: &str = "user_table_reads";
/// Name of the extra per-agent limit on run creation.
pub const AGENT_RUNS_NAME: &str = "agent_runs";

/// The spec's per-credential limit: 100 requests per 60 s.
pub const CREDENTIAL_LIMIT: Quota = Quota::per_seconds(100, 60);
/// The spec's per-client-IP limit of unauthenticated traffic: 100 per 60 s.
pub const CLIENT_IP_LIMIT: Quota = Quota::per_seconds(100, 60);
/// The spec's extra per-user limit on table reads: 5 per 60 s.
pub const USER_TABLE_READS: Quota = Quota::per_seconds(5, 60);
/// The spec's extra per-agent limit on run creation: 30 per 60 s.
pub const AGENT_RUNS: Quota = Quota::per_seconds(30, 60);

/// Shortest window a configured quota may have: one second (headers count
/// in whole seconds).
pub const MIN_WINDOW_MS: u64 = 1_000;
/// Longest window a configured quota may have: 366 days.
pub const MAX_WINDOW_MS: u64 = 366 * 86_400 * 1_000;

/// Why a configured quota was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuotaError {
    /// `requests` is 0, which would refuse every request.
    #[error("requests must be at least 1 (0 would refuse every request)")]
    NoRequests,
    /// The window is shorter than [`MIN_WINDOW_MS`] or longer than [`MAX_WINDOW_MS`].
    #[error("window_ms must be from 1000 (1 s) to 31622400000 (366 days); got {0}")]
    Window(u64),
}

/// Checks that a configured quota admits something and has a window the
/// headers can describe: `requests >= 1`, window from 1 s to 366 days.
pub fn check_quota(quota: &Quota) -> Result<(), QuotaError> {
    if quota.requests == 0 {
        return Err(QuotaError::NoRequests);
    }
    if !(MIN_WINDOW_MS..=MAX_WINDOW_MS).contains(&quota.window_ms) {
        return Err(QuotaError::Window(quota.window_ms));
    }
    Ok(())
}

/// The two limits every request meets one of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitSettings {
    /// Authenticated traffic, per credential.
    pub credential: Quota,
    /// Unauthenticated traffic (public operations, and requests that failed
    /// before a credential was established), per client IP.
    pub client_ip: Quota,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            credential: CREDENTIAL_LIMIT,
            client_ip: CLIENT_IP_LIMIT,
        }
    }
}

/// The authenticated credential a request is counted against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CredentialFacts<'a> {
    /// The credential's public id (never the secret).
    pub id: &'a str,
    /// The user it belongs to.
    pub user: &'a str,
}

/// What decides which limits a request meets, all DECODED: the gate fills
/// it after authentication and path decoding; a client fills it from the
/// credential it will send and the path values it will encode.
#[derive(Debug, Clone, Copy)]
pub struct RequestFacts<'a> {
    /// The operation.
    pub operation: &'a Operation,
    /// The credential, when one is established (ignored for public
    /// operations, which are always counted per client IP).
    pub credential: Option<CredentialFacts<'a>>,
    /// The client's IP address (a client that does not know its own address
    /// passes any fixed label: it only names its own bucket).
    pub client_ip: &'a str,
    /// The decoded path parameters, by name (e.g. `("agent_id", "a1")`).
    pub path_params: &'a [(String, String)],
}

/// One limit that applies to a request: which, how big, and whom it counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedLimit {
    /// The limit's name, e.g. [`CREDENTIAL_LIMIT_NAME`].
    pub name: String,
    /// Its size.
    pub quota: Quota,
    /// Whom it counts: a credential id, client IP, user or decoded path value.
    pub subject: String,
}

impl AppliedLimit {
    /// The borrowed form a [`crate::limit::RateLimiter`] takes.
    pub fn check(&self) -> LimitCheck<'_> {
        LimitCheck {
            name: &self.name,
            quota: self.quota,
            subject: &self.subject,
        }
    }
}

impl LimitSettings {
    /// The base limit alone: the credential's when one is established,
    /// else the client IP's. It is also the one limit a request meets when
    /// it fails before the limits step (unknown route, 401: per client IP;
    /// a valid token lacking the scope, 403: per credential).
    pub fn base(&self, credential: Option<CredentialFacts<'_>>, client_ip: &str) -> AppliedLimit {
        match credential {
            Some(credential) => AppliedLimit {
                name: CREDENTIAL_LIMIT_NAME.into(),
                quota: self.credential,
                subject: credential.id.into(),
            },
            None => AppliedLimit {
                name: CLIENT_IP_LIMIT_NAME.into(),
                quota: self.client_ip,
                subject: client_ip.into(),
            },
        }
    }

    /// Every limit `facts` meets, base limit first, then the operation's
    /// extra limits in catalogue order.
    ///
    /// * Public operation, or no credential: the per-client-IP limit.
    /// * Otherwise: the per-credential limit.
    /// * An extra limit per user applies when a credential is known; one per
    ///   path parameter applies to the parameter's decoded value (so
    ///   `/agents/a1/runs` and `/agents/a%31/runs` share one bucket) and is
    ///   skipped when the parameter is absent.
    pub fn applicable(&self, facts: &RequestFacts<'_>) -> Vec<AppliedLimit> {
        let credential = match facts.operation.credential {
            CredentialPolicy::Public => None,
            _ => facts.credential,
        };
        let mut limits = Vec::with_capacity(facts.operation.extra_limits.len().saturating_add(1));
        limits.push(self.base(credential, facts.client_ip));
        for extra in &facts.operation.extra_limits {
            let subject = match &extra.per {
                LimitSubject::User => credential.map(|credential| credential.user),
                LimitSubject::PathParam(param) => facts
                    .path_params
                    .iter()
                    .find(|(name, _)| name == param)
                    .map(|(_, value)| value.as_str()),
            };
            if let Some(subject) = subject {
                limits.push(AppliedLimit {
                    name: extra.name.clone(),
                    quota: extra.quota,
                    subject: subject.into(),
                });
            }
        }
        limits
    }
}

/// The order that names the tightest limit in `RateLimit-*` headers: fewer
/// remaining first, and on a tie the one that resets LAST. The smallest key
/// is the tightest (use with `min_by_key`).
pub fn tightness(remaining: u32, reset_at: UnixMillis) -> (u32, std::cmp::Reverse<UnixMillis>) {
    (remaining, std::cmp::Reverse(reset_at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Catalogue;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn run_creation_meets_the_credential_and_the_decoded_agent_limit() {
        let operation = Catalogue::create_agent_run();
        let path = params(&[("agent_id", "a1")]);
        let limits = LimitSettings::default().applicable(&RequestFacts {
            operation: &operation,
            credential: Some(CredentialFacts {
                id: "key-ada",
                user: "ada",
            }),
            client_ip: "203.0.113.7",
            path_params: &path,
        });
        let shown: Vec<(&str, u32, u64, &str)> = limits
            .iter()
            .map(|l| {
                (
                    l.name.as_str(),
                    l.quota.requests,
                    l.quota.window_ms,
                    l.subject.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                ("credential", 100, 60_000, "key-ada"),
                ("agent_runs", 30, 60_000, "a1")
            ]
        );
    }

    #[test]
    fn table_reads_meet_the_user_limit_and_public_ops_the_ip_limit() {
        let catalogue = Catalogue::standard();
        let tables = catalogue.get("listTableRecords").unwrap();
        let path = params(&[("id", "t1")]);
        let credential = Some(CredentialFacts {
            id: "key-ada",
            user: "ada",
        });
        let limits = LimitSettings::default().applicable(&RequestFacts {
            operation: tables,
            credential,
            client_ip: "198.51.100.1",
            path_params: &path,
        });
        let names: Vec<(&str, &str, u32)> = limits
            .iter()
            .map(|l| (l.name.as_str(), l.subject.as_str(), l.quota.requests))
            .collect();
        assert_eq!(
            names,
            [
                ("credential", "key-ada", 100),
                ("user_table_reads", "ada", 5)
            ]
        );
        let index = catalogue.get("getApiIndex").unwrap();
        let limits = LimitSettings::default().applicable(&RequestFacts {
            operation: index,
            credential,
            client_ip: "198.51.100.1",
            path_params: &[],
        });
        assert_eq!(
            limits,
            [AppliedLimit {
                name: "client_ip".into(),
                quota: Quota::per_seconds(100, 60),
                subject: "198.51.100.1".into()
            }]
        );
        let anonymous = LimitSettings::default().applicable(&RequestFacts {
            operation: tables,
            credential: None,
            client_ip: "198.51.100.1",
            path_params: &path,
        });
        assert_eq!(anonymous.len(), 1, "no user limit without a credential");
    }

    #[test]
    fn quota_bounds() {
        assert_eq!(check_quota(&Quota::per_seconds(1, 1)), Ok(()));
        assert_eq!(
            check_quota(&Quota::per_seconds(0, 60)),
            Err(QuotaError::NoRequests)
        );
        assert_eq!(
            check_quota(&Quota {
                requests: 5,
                window_ms: 999
            }),
            Err(QuotaError::Window(999))
        );
        assert_eq!(check_quota(&Quota::per_seconds(5, 366 * 86_400)), Ok(()));
        assert!(check_quota(&Quota::per_seconds(5, 366 * 86_400 + 1)).is_err());
    }

    #[test]
    fn tightest_is_least_remaining_then_latest_reset() {
        let (early, late) = (UnixMillis::new(10), UnixMillis::new(99));
        assert!(tightness(0, early) < tightness(1, late));
        assert!(tightness(3, late) < tightness(3, early));
    }
}
