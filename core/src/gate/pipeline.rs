//! The decision pipeline: [`Gate::decide`] and the caller's second step,
//! [`Admitted::respond`].

use super::admitted::{Admitted, ResourceAnswer};
use super::auth::{self, AuthFailure};
use super::bodies::{error_response, limiter_unavailable, too_many};
use super::config::{GateConfig, GateConfigError};
use super::headers::Headers;
use super::request::GateRequest;
use super::response::GateResponse;
use super::route::{Route, Router};
use crate::limit::{self, LimitAlgorithm, LimitCheck, LimiterConfig, RateLimiter, StackDecision};
use crate::model::header_names::ALLOW;
use crate::model::index::ApiIndex;
use crate::model::limits::{
    CredentialFacts, RequestFacts, CLIENT_IP_LIMIT_NAME, CREDENTIAL_LIMIT_NAME,
};
use crate::model::operation::DeprecationNotice;
use crate::model::query::{decode_component, parse_query};
use crate::model::{
    CredentialPolicy, CredentialRecord, CredentialStore, ErrorBody, InMemoryCredentials, Operation,
    ParamProblem, Params, Principal,
};
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
    Respond(GateResponse),
    /// The request passed every rule; the caller looks the resource up and
    /// answers with [`Admitted::respond`].
    Resolve(Box<Admitted>),
}

/// The caller's answer in the two-step form, as a one-entry store.
struct Answered(Option<CredentialRecord>);

impl CredentialStore for Answered {
    fn lookup(&self, _secret: &str) -> Option<CredentialRecord> {
        self.0.clone()
    }
}

/// How a request that ends before step 5 is counted.
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
        Self::in_memory_with(config, credentials, LimitAlgorithm::FixedWindow)
    }

    /// A gate with in-memory credentials and the in-memory limiter running
    /// `algorithm` (default limiter configuration).
    pub fn in_memory_with(
        config: GateConfig,
        credentials: InMemoryCredentials,
        algorithm: LimitAlgorithm,
    ) -> Result<Self, GateConfigError> {
        let limiter = limit::in_memory(algorithm, LimiterConfig::default());
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

    /// Decides what to do with `request` at `now`.
    pub fn decide(&self, request: &GateRequest, now: UnixMillis) -> Decision {
        self.decide_using(request, now, &*self.credentials)
    }

    /// Step one of the two-step form for credential stores the gate cannot
    /// call itself (remote, async): the secret it would look up for
    /// `request`, or `None` when it needs none (public operation, no or
    /// malformed credential). Look it up, then call [`Gate::decide_answered`].
    pub fn credential_to_look_up<'r>(&self, request: &'r GateRequest) -> Option<&'r str> {
        let route = self
            .router
            .route(&self.config.catalogue, &request.method, &request.target);
        let Route::Matched { operation, .. } = route else {
            return None;
        };
        let operation = self.config.catalogue.operations().get(operation)?;
        if operation.credential == CredentialPolicy::Public {
            return None;
        }
        auth::extract(&request.headers, &self.config.prefixes())
            .ok()
            .flatten()
            .map(|presented| presented.secret)
    }

    /// Step two: decides `request` with the caller's answer for the secret
    /// named by [`Gate::credential_to_look_up`] (`None`: unknown credential).
    pub fn decide_answered(
        &self,
        request: &GateRequest,
        record: Option<CredentialRecord>,
        now: UnixMillis,
    ) -> Decision {
        self.decide_using(request, now, &Answered(record))
    }

    fn decide_using(
        &self,
        request: &GateRequest,
        now: UnixMillis,
        store: &dyn CredentialStore,
    ) -> Decision {
        let catalogue = &self.config.catalogue;
        let route = self
            .router
            .route(catalogue, &request.method, &request.target);
        let (position, raw_params, via_egress, raw_query) = match route {
            Route::Matched {
                operation,
                raw_params,
                via_egress,
                raw_query,
            } => (operation, raw_params, via_egress, raw_query),
            Route::NotFound(detail) => {
                return self.early(
                    request,
                    None,
                    Base::ClientIp,
                    ErrorBody::new(404, detail),
                    now,
                )
            }
            Route::MethodNotAllowed { allow, detail } => {
                let mut headers = Headers::json();
                headers.push(ALLOW, allow);
                return self.early_with(
                    request,
                    None,
                    Base::ClientIp,
                    ErrorBody::new(405, detail),
                    headers,
                    now,
                );
            }
        };
        let Some(operation) = catalogue.operations().get(position) else {
            return Decision::Respond(self.internal_error());
        };
        let record = match self.authenticate(request, operation, now, store) {
            Ok(record) => record,
            Err(response) => return Decision::Respond(response),
        };

        // Path parameters are decoded first: limits count decoded values.
        let mut problems = Vec::new();
        let mut path_params = Vec::new();
        for (name, raw) in operation.path.param_names().zip(&raw_params) {
            match decode_path_segment(raw) {
                Ok(value) => path_params.push((name.to_owned(), value)),
                Err(problem) => problems.push(ParamProblem::new(name, problem)),
            }
        }

        // Step 5: every limit that applies, all or none.
        let limits = self.config.limits.applicable(&RequestFacts {
            operation,
            credential: record.as_ref().map(|record| CredentialFacts {
                id: &record.id,
                user: &record.user,
            }),
            client_ip: &request.client_ip,
            path_params: &path_params,
        });
        let checks: Vec<LimitCheck<'_>> = limits.iter().map(|limit| limit.check()).collect();
        let deprecation = self.deprecation_of(Some(operation));
        let decision = match self.limiter.try_acquire(&checks, now) {
            Ok(decision) => decision,
            Err(unavailable) => {
                return Decision::Respond(limiter_unavailable(unavailable, deprecation, now))
            }
        };
        let mut headers = Headers::json();
        headers.rate_limit(&decision, now);
        headers.deprecation(deprecation);
        if let StackDecision::Refused { .. } = decision {
            return Decision::Respond(too_many(headers, &decision, &checks, now));
        }

        // Step 6: every parameter problem.
        let mut stable_egress = via_egress;
        if operation.stable_egress {
            match self.stable_egress_header(request) {
                Ok(asked) => stable_egress |= asked,
                Err(problem) => problems.push(problem),
            }
        }
        let params = match parse_query(raw_query, &operation.params) {
            Ok(params) => params,
            Err(found) => {
                problems.extend(found);
                Params::default()
            }
        };
        if !problems.is_empty() {
            return Decision::Respond(error_response(
                headers,
                ErrorBody::invalid_params(&problems),
            ));
        }

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
            headers: headers.0,
        };
        if operation.needs_resource {
            Decision::Resolve(Box::new(admitted))
        } else {
            Decision::Respond(admitted.respond(ResourceAnswer::Found(self.index_bytes.clone())))
        }
    }

    /// Steps 2–4. `Ok(None)` for public operations.
    fn authenticate(
        &self,
        request: &GateRequest,
        operation: &Operation,
        now: UnixMillis,
        store: &dyn CredentialStore,
    ) -> Result<Option<CredentialRecord>, GateResponse> {
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
        let response = match failure {
            AuthFailure::Ambiguous(detail) => self.early_with(
                request,
                Some(operation),
                Base::ClientIp,
                ErrorBody::new(400, detail),
                headers,
                now,
            ),
            AuthFailure::Missing(detail) => {
                headers.challenge(realm, None, None);
                self.early_with(
                    request,
                    Some(operation),
                    Base::ClientIp,
                    ErrorBody::new(401, detail),
                    headers,
                    now,
                )
            }
            AuthFailure::Invalid(detail) => {
                headers.challenge(realm, Some("invalid_token"), None);
                self.early_with(
                    request,
                    Some(operation),
                    Base::ClientIp,
                    ErrorBody::new(401, detail),
                    headers,
                    now,
                )
            }
            AuthFailure::InsufficientScope { scope, detail } => {
                headers.challenge(realm, Some("insufficient_scope"), Some(&scope));
                // The credential is valid: it is the one charged.
                let record = auth::extract(&request.headers, &prefixes)
                    .ok()
                    .flatten()
                    .and_then(|presented| store.lookup(presented.secret));
                match &record {
                    Some(record) => self.early_with(
                        request,
                        Some(operation),
                        Base::Credential(record),
                        ErrorBody::new(403, detail),
                        headers,
                        now,
                    ),
                    None => self.early_with(
                        request,
                        Some(operation),
                        Base::ClientIp,
                        ErrorBody::new(403, detail),
                        headers,
                        now,
                    ),
                }
            }
        };
        match response {
            Decision::Respond(response) => Err(response),
            Decision::Resolve(_) => Err(self.internal_error()),
        }
    }

    /// A request that ends before step 5: counted against its base limit,
    /// answered with `body` unless that limit refuses (then 429).
    fn early(
        &self,
        request: &GateRequest,
        operation: Option<&Operation>,
        base: Base<'_>,
        body: ErrorBody,
        now: UnixMillis,
    ) -> Decision {
        self.early_with(request, operation, base, body, Headers::json(), now)
    }

    fn early_with(
        &self,
        request: &GateRequest,
        operation: Option<&Operation>,
        base: Base<'_>,
        body: ErrorBody,
        mut headers: Headers,
        now: UnixMillis,
    ) -> Decision {
        let check = match base {
            Base::ClientIp => LimitCheck {
                name: CLIENT_IP_LIMIT_NAME,
                quota: self.config.limits.client_ip,
                subject: &request.client_ip,
            },
            Base::Credential(record) => LimitCheck {
                name: CREDENTIAL_LIMIT_NAME,
                quota: self.config.limits.credential,
                subject: &record.id,
            },
        };
        let checks = [check];
        let deprecation = self.deprecation_of(operation);
        let decision = match self.limiter.try_acquire(&checks, now) {
            Ok(decision) => decision,
            Err(unavailable) => {
                return Decision::Respond(limiter_unavailable(unavailable, deprecation, now))
            }
        };
        if let StackDecision::Refused { .. } = decision {
            let mut fresh = Headers::json();
            fresh.rate_limit(&decision, now);
            fresh.deprecation(deprecation);
            return Decision::Respond(too_many(fresh, &decision, &checks, now));
        }
        headers.rate_limit(&decision, now);
        headers.deprecation(deprecation);
        Decision::Respond(error_response(headers, body))
    }

    fn deprecation_of<'a>(
        &'a self,
        operation: Option<&'a Operation>,
    ) -> Option<&'a DeprecationNotice> {
        operation
            .and_then(|operation| operation.deprecation.as_ref())
            .or(self.config.version_deprecation.as_ref())
    }

    fn stable_egress_header(&self, request: &GateRequest) -> Result<bool, ParamProblem> {
        let name = &self.config.stable_egress_header;
        let values: Vec<&[u8]> = request.header_values(name).collect();
        match values.as_slice() {
            [] => Ok(false),
            [value] => match value.trim_ascii() {
                b"true" => Ok(true),
                b"false" => Ok(false),
                _ => Err(ParamProblem::new(name, "must be true or false")),
            },
            _ => Err(ParamProblem::new(
                name,
                "is given more than once; give it at most once",
            )),
        }
    }

    fn internal_error(&self) -> GateResponse {
        error_response(
            Headers::json(),
            ErrorBody::new(
                500,
                "The gate met an inconsistent catalogue; please report this.",
            ),
        )
    }
}

/// Path segments are percent-decoded strictly; `+` stays `+`.
fn decode_path_segment(raw: &[u8]) -> Result<String, String> {
    if raw.contains(&b'+') {
        let escaped: Vec<u8> = raw
            .iter()
            .flat_map(|&byte| {
                if byte == b'+' {
                    b"%2B".to_vec()
                } else {
                    vec![byte]
                }
            })
            .collect();
        return decode_path_segment(&escaped);
    }
    decode_component(raw)
        .map(|value| value.into_owned())
        .map_err(|reason| format!("path segment {reason}"))
}
