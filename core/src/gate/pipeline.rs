//! The decision pipeline's orchestration: [`Gate`], its constructors, and
//! the ways to decide a request (in one call, or with the credential and
//! the limits answered by the caller). Steps 1–4 and the inputs of step 6
//! run here; step 5 is a [`PendingLimits`] value; steps 7–8 are
//! [`Admitted::respond`].

use super::admitted::Admitted;
use super::auth::{self, AuthFailure};
use super::config::{GateConfig, GateConfigError};
use super::headers::Headers;
use super::pending::{PendingLimits, Then};
use super::request::GateRequest;
use super::response::GateResponse;
use super::validate;
use crate::limit::{self, LimitAlgorithm, LimiterConfig, RateLimiter};
use crate::model::header_names::ALLOW;
use crate::model::index::ApiIndex;
use crate::model::limits::{CredentialFacts, RequestFacts};
use crate::model::operation::DeprecationNotice;
use crate::model::{
    CredentialPolicy, CredentialRecord, CredentialStore, ErrorBody, InMemoryCredentials, Operation,
    Params, Principal,
};
use crate::model::{Route, Router};
use crate::UnixMillis;
use std::sync::Arc;

/// The gate: configuration, credential store and limiter, shared by every
/// request. `Send + Sync`; one instance serves all threads.
pub struct Gate {
    config: GateConfig,
    router: Router,
    index: ApiIndex,
    index_bytes: Vec<u8>,
    credentials: Arc<dyn CredentialStore>,
    limiter: Arc<dyn RateLimiter>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("version", &self.config.version)
            .field("base_url", &self.config.base_url)
            .finish_non_exhaustive()
    }
}

/// What the gate decided about a request.
#[derive(Debug)]
pub enum Decision {
    /// The response is complete: send it.
    Reply(GateResponse),
    /// The request passed every rule; the caller fetches the resource and
    /// answers with [`Admitted::respond`].
    FetchResource(Box<Admitted>),
}

/// The caller's answer in the two-step form, as a one-entry store.
struct Answered(Option<CredentialRecord>);

impl CredentialStore for Answered {
    fn lookup(&self, _secret: &str) -> Option<CredentialRecord> {
        self.0.clone()
    }
}

/// Whom a request that ends before step 5 is counted against.
enum Base<'a> {
    ClientIp,
    Credential(&'a CredentialRecord),
}

impl Gate {
    /// A gate over `credentials` and `limiter`, after checking `config`.
    pub fn new(
        config: GateConfig,
        credentials: Arc<dyn CredentialStore>,
        limiter: Arc<dyn RateLimiter>,
    ) -> Result<Self, GateConfigError> {
        config.check()?;
        let index = config.build_index()?;
        let router = Router::new(config.version.clone(), config.egress_segments()?);
        Ok(Self {
            index_bytes: index.to_bytes(),
            index,
            router,
            config,
            credentials,
            limiter,
        })
    }

    /// A gate with in-memory credentials and the in-memory fixed-window
    /// limiter.
    pub fn in_memory(
        config: GateConfig,
        credentials: InMemoryCredentials,
    ) -> Result<Self, GateConfigError> {
        Self::in_memory_with(config, credentials, LimitAlgorithm::default())
    }

    /// A gate with in-memory credentials and the in-memory limiter running
    /// `algorithm` (default limiter configuration, hash seed `0`: see
    /// [`Self::in_memory_seeded`] for a gate facing the network).
    pub fn in_memory_with(
        config: GateConfig,
        credentials: InMemoryCredentials,
        algorithm: LimitAlgorithm,
    ) -> Result<Self, GateConfigError> {
        Self::in_memory_seeded(config, credentials, algorithm, 0)
    }

    /// A gate with in-memory credentials and the in-memory limiter running
    /// `algorithm`, its keys hashed with `hash_seed` (see
    /// [`LimiterConfig::hash_seed`]): edges pass a seed drawn from the
    /// operating system, tests a fixed one.
    pub fn in_memory_seeded(
        config: GateConfig,
        credentials: InMemoryCredentials,
        algorithm: LimitAlgorithm,
        hash_seed: u64,
    ) -> Result<Self, GateConfigError> {
        let limiter = limit::in_memory(
            algorithm,
            LimiterConfig {
                hash_seed,
                ..LimiterConfig::default()
            },
        );
        Self::new(config, Arc::new(credentials), limiter)
    }

    /// A gate with the demo credentials of [`super::demo`] (for examples and tests).
    pub fn demo(config: GateConfig) -> Result<Self, GateConfigError> {
        Self::in_memory(config, super::demo::credentials())
    }

    /// The configuration.
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    /// The index document served at `/api/{version}`.
    pub fn index(&self) -> &ApiIndex {
        &self.index
    }

    /// Decides what to do with `request` at `now`, with the gate's own
    /// credential store and limiter.
    pub fn decide(&self, request: &GateRequest, now: impl Into<UnixMillis>) -> Decision {
        let now = now.into();
        self.prepare(request, now).run(&*self.limiter, now)
    }

    /// Steps 1–4 and 6 with the gate's own credential store; the limits
    /// (step 5) are left to the caller: check [`PendingLimits::checks`] in
    /// any store, then [`PendingLimits::resume`]. For stores the gate cannot
    /// call itself (remote, async), so nothing blocks inside the gate.
    pub fn prepare(&self, request: &GateRequest, now: impl Into<UnixMillis>) -> PendingLimits {
        self.prepare_using(request, now.into(), &*self.credentials)
    }

    /// Credential step one, for credential stores the gate cannot call
    /// itself (remote, async): the secret it would look up for `request`,
    /// or `None` when it needs none (public operation, no or malformed
    /// credential). Look it up, then call [`Gate::decide_answered`] or
    /// [`Gate::prepare_answered`].
    pub fn credential_to_look_up<'r>(&self, request: &'r GateRequest) -> Option<&'r str> {
        let route = self
            .router
            .route(&self.config.catalogue, &request.method, &request.target);
        let Route::Matched { operation, .. } = route else {
            return None;
        };
        if operation.credential == CredentialPolicy::Public {
            return None;
        }
        auth::extract(&request.headers, &self.config.prefixes())
            .ok()
            .flatten()
            .map(|presented| presented.secret)
    }

    /// Credential step two: decides `request` with the caller's answer for
    /// the secret named by [`Gate::credential_to_look_up`] (`None`: unknown
    /// credential) and the gate's own limiter.
    pub fn decide_answered(
        &self,
        request: &GateRequest,
        record: Option<CredentialRecord>,
        now: impl Into<UnixMillis>,
    ) -> Decision {
        let now = now.into();
        self.prepare_answered(request, record, now)
            .run(&*self.limiter, now)
    }

    /// Like [`Gate::prepare`] with the caller's credential answer: both
    /// look-ups (credential and limits) done by the caller.
    pub fn prepare_answered(
        &self,
        request: &GateRequest,
        record: Option<CredentialRecord>,
        now: impl Into<UnixMillis>,
    ) -> PendingLimits {
        self.prepare_using(request, now.into(), &Answered(record))
    }

    fn prepare_using(
        &self,
        request: &GateRequest,
        now: UnixMillis,
        store: &dyn CredentialStore,
    ) -> PendingLimits {
        let catalogue = &self.config.catalogue;
        let route = self
            .router
            .route(catalogue, &request.method, &request.target);
        let (operation, raw_params, via_egress, raw_query) = match route {
            Route::Matched {
                operation,
                raw_params,
                via_egress,
                raw_query,
            } => (operation, raw_params, via_egress, raw_query),
            Route::NotFound(detail) => {
                return self.answer(
                    request,
                    None,
                    Base::ClientIp,
                    Headers::json(),
                    ErrorBody::new(404, detail),
                )
            }
            Route::MethodNotAllowed { allow, detail } => {
                let mut headers = Headers::json();
                headers.push(ALLOW, allow);
                return self.answer(
                    request,
                    None,
                    Base::ClientIp,
                    headers,
                    ErrorBody::new(405, detail),
                );
            }
        };
        let record = match self.authenticate(request, operation, now, store) {
            Ok(record) => record,
            Err(pending) => return *pending,
        };

        // Path parameters are decoded first: limits count decoded values.
        let (path_params, mut problems) = validate::decode_path(operation, &raw_params);
        let limits = self.config.limits.applicable(&RequestFacts {
            operation,
            credential: record.as_ref().map(|record| CredentialFacts {
                id: &record.id,
                user: &record.user,
            }),
            client_ip: &request.client_ip,
            path_params: &path_params,
        });

        // Step 6's inputs: nothing here is charged or stored, so finding the
        // problems before the limits changes no answer.
        let mut stable_egress = via_egress;
        if operation.stable_egress {
            match validate::stable_egress_header(request, &self.config.stable_egress_header) {
                Ok(asked) => stable_egress |= asked,
                Err(problem) => problems.push(problem),
            }
        }
        let params = match validate::query(raw_query, operation) {
            Ok(params) => params,
            Err(found) => {
                problems.extend(found);
                Params::default()
            }
        };
        let principal = match record {
            Some(record) => Principal::Credential(record),
            None => Principal::Anonymous {
                client_ip: request.client_ip.clone(),
            },
        };
        let admitted = Admitted {
            operation_id: operation.id.clone(),
            envelope: operation.envelope,
            noun: operation.noun().to_owned(),
            path_params,
            params,
            principal,
            stable_egress,
            headers: vec![],
        };
        PendingLimits {
            limits,
            deprecation: self.deprecation_of(Some(operation)).copied(),
            then: Then::Admit {
                problems,
                admitted: Box::new(admitted),
                own_payload: (!operation.needs_resource).then(|| self.index_bytes.clone()),
            },
        }
    }

    /// Steps 2–4. `Ok(None)` for public operations; a failure is a request
    /// that still has its base limit to pass.
    fn authenticate(
        &self,
        request: &GateRequest,
        operation: &Operation,
        now: UnixMillis,
        store: &dyn CredentialStore,
    ) -> Result<Option<CredentialRecord>, Box<PendingLimits>> {
        if operation.credential == CredentialPolicy::Public {
            return Ok(None);
        }
        let prefixes = self.config.prefixes();
        let failure = match auth::extract(&request.headers, &prefixes) {
            Ok(presented) => {
                match auth::authenticate(presented, &operation.credential, store, now) {
                    Ok(record) => return Ok(Some(record)),
                    Err(failure) => failure,
                }
            }
            Err(failure) => failure,
        };
        let realm = &self.config.realm;
        let mut headers = Headers::json();
        let (base_record, body) = match failure {
            AuthFailure::Ambiguous(detail) => (None, ErrorBody::new(400, detail)),
            AuthFailure::Missing(detail) => {
                headers.challenge(realm, None, None);
                (None, ErrorBody::new(401, detail))
            }
            AuthFailure::Invalid(detail) => {
                headers.challenge(realm, Some("invalid_token"), None);
                (None, ErrorBody::new(401, detail))
            }
            AuthFailure::InsufficientScope { scope, detail } => {
                headers.challenge(realm, Some("insufficient_scope"), Some(&scope));
                // The credential is valid: it is the one charged.
                let record = auth::extract(&request.headers, &prefixes)
                    .ok()
                    .flatten()
                    .and_then(|presented| store.lookup(presented.secret));
                (record, ErrorBody::new(403, detail))
            }
        };
        let base = match &base_record {
            Some(record) => Base::Credential(record),
            None => Base::ClientIp,
        };
        Err(Box::new(self.answer(
            request,
            Some(operation),
            base,
            headers,
            body,
        )))
    }

    /// A request that ends before step 5: counted against its base limit,
    /// answered with `body` unless that limit refuses (then 429).
    fn answer(
        &self,
        request: &GateRequest,
        operation: Option<&Operation>,
        base: Base<'_>,
        headers: Headers,
        body: ErrorBody,
    ) -> PendingLimits {
        let credential = match base {
            Base::ClientIp => None,
            Base::Credential(record) => Some(CredentialFacts {
                id: &record.id,
                user: &record.user,
            }),
        };
        let limit = self.config.limits.base(credential, &request.client_ip);
        PendingLimits {
            limits: vec![limit],
            deprecation: self.deprecation_of(operation).copied(),
            then: Then::Answer { headers, body },
        }
    }

    fn deprecation_of<'a>(
        &'a self,
        operation: Option<&'a Operation>,
    ) -> Option<&'a DeprecationNotice> {
        operation
            .and_then(|operation| operation.deprecation.as_ref())
            .or(self.config.version_deprecation.as_ref())
    }
}
