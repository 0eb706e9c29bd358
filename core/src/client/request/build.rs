//! [`build_request`]: a [`RequestSpec`] becomes a [`ClientRequest`] in named
//! steps, each failing before any I/O with the error a caller can act on:
//!
//! 1. [`operation`]: the catalogue entry;
//! 2. [`path`]: every placeholder given (and nothing else), encoded;
//! 3. [`query`]: roles resolved to names, validated by the gate's
//!    validators, encoded, with advice for parameters that do nothing;
//! 4. [`credential`]: which credential, and the header it goes in;
//! 5. [`root`]: the default root, or stable egress by header or URL;
//! 6. [`idempotency_key`]: the caller's, or an automatic one;
//! 7. [`limits`]: the limits the request counts against (the model's rule).

use super::{ClientRequest, EgressMode, LimitRef, RequestSpec};
use crate::client::config::{ApiKeyHeader, ClientConfig, ClientCredential};
use crate::client::error::ClientError;
use crate::client::random::KeyStream;
use crate::model::header_names::{AUTHORIZATION, IDEMPOTENCY_KEY, X_API_KEY};
use crate::model::limits::{CredentialFacts, LimitSettings, RequestFacts, CLIENT_IP_LIMIT_NAME};
use crate::model::operation::Segment;
use crate::model::query::{encode_component, validate_pairs};
use crate::model::{CredentialKind, CredentialPolicy, Operation, ParamProblem, ParamRole};

/// Builds the request `spec` describes, validating it fully first.
pub fn build_request(
    config: &ClientConfig,
    spec: &RequestSpec,
    keys: &mut KeyStream,
) -> Result<ClientRequest, ClientError> {
    let operation = operation(config, spec)?;
    let (path, path_params) = path(operation, spec)?;
    let (query, warnings) = query(operation, spec)?;
    let mut headers: Vec<(String, String)> = vec![("Accept".into(), "application/json".into())];
    let sender = credential(config, operation, spec)?;
    if let Some(sender) = &sender {
        headers.push(credential_header(config, operation, sender));
    }
    let mut url = root(config, operation, spec.egress, &mut headers)? + &path;
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query);
    }
    if spec.body.is_some() {
        headers.push(("Content-Type".into(), "application/json".into()));
    }
    let idempotency_key = idempotency_key(config, operation, spec, keys);
    if let Some(key) = &idempotency_key {
        headers.push((IDEMPOTENCY_KEY.into(), key.clone()));
    }
    Ok(ClientRequest {
        method: operation.method.clone(),
        url,
        headers,
        body: spec.body.clone(),
        operation_id: operation.id.clone(),
        limits: limits(config, operation, sender, &path_params),
        idempotency_key,
        warnings,
    })
}

/// Step 1: the operation `spec` names, from the client's catalogue.
fn operation<'c>(
    config: &'c ClientConfig,
    spec: &RequestSpec,
) -> Result<&'c Operation, ClientError> {
    config
        .catalogue
        .get(&spec.operation)
        .ok_or_else(|| ClientError::UnknownOperation {
            operation: spec.operation.clone(),
        })
}

/// Step 2: the path below the root, each value percent-encoded, and the
/// decoded values by name (limits count decoded values). Every placeholder
/// must be given a non-empty value, and no other name may be given.
fn path(
    operation: &Operation,
    spec: &RequestSpec,
) -> Result<(String, Vec<(String, String)>), ClientError> {
    let mut path = String::new();
    let mut values = Vec::new();
    for segment in operation.path.segments() {
        let text = match segment {
            Segment::Literal(text) => text.clone(),
            Segment::Param(name) => {
                let value = path_value(operation, spec, name)?;
                values.push((name.clone(), value.to_owned()));
                encode_component(value)
            }
        };
        path.push('/');
        path.push_str(&text);
    }
    if let Some((name, _)) = spec
        .path
        .iter()
        .find(|(given, _)| !operation.path.param_names().any(|n| n == given))
    {
        return Err(ClientError::BadPathParam {
            operation: operation.id.clone(),
            param: name.clone(),
            problem: format!(
                "is not in the path template {:?}",
                operation.path.to_string()
            ),
        });
    }
    Ok((path, values))
}

/// The value given for placeholder `name`: present and non-empty.
fn path_value<'s>(
    operation: &Operation,
    spec: &'s RequestSpec,
    name: &str,
) -> Result<&'s str, ClientError> {
    let value = spec
        .path
        .iter()
        .find(|(given, _)| given == name)
        .map(|(_, value)| value.as_str())
        .ok_or_else(|| ClientError::MissingPathParam {
            operation: operation.id.clone(),
            param: name.to_owned(),
        })?;
    if value.is_empty() {
        return Err(ClientError::BadPathParam {
            operation: operation.id.clone(),
            param: name.to_owned(),
            problem: "must not be empty".into(),
        });
    }
    Ok(value)
}

/// Step 3: the encoded query (without `?`) and the advice about it. Roles
/// become the catalogue's names, after the pairs given by name; the pairs
/// pass the gate's validators.
fn query(operation: &Operation, spec: &RequestSpec) -> Result<(String, Vec<String>), ClientError> {
    let mut pairs: Vec<(String, String)> = spec.query.clone();
    for (role, value) in &spec.roles {
        let param = operation
            .params
            .iter()
            .find(|param| param.role == *role)
            .ok_or_else(|| ClientError::InvalidParams {
                operation: operation.id.clone(),
                problems: vec![ParamProblem::new(
                    format!("{role:?}"),
                    "is not a parameter role of this operation",
                )],
            })?;
        pairs.push((param.name.clone(), value.clone()));
    }
    let params = validate_pairs(
        pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())),
        &operation.params,
    )
    .map_err(|problems| ClientError::InvalidParams {
        operation: operation.id.clone(),
        problems,
    })?;
    let warnings = if params.order_by().is_none() {
        ignored_without_order(operation, &pairs)
    } else {
        Vec::new()
    };
    let query: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encode_component(name), encode_component(value)))
        .collect();
    Ok((query.join("&"), warnings))
}

/// One sentence per parameter given that has no effect without `order_by`
/// (`direction`, `after`): the server ignores it.
fn ignored_without_order(operation: &Operation, pairs: &[(String, String)]) -> Vec<String> {
    pairs
        .iter()
        .filter_map(|(name, _)| operation.params.iter().find(|p| &p.name == name))
        .filter(|param| matches!(param.role, ParamRole::Direction | ParamRole::After))
        .map(|param| {
            format!(
                "{} has no effect without order_by; the server ignores it",
                param.name
            )
        })
        .collect()
}

/// Step 4: the credential the request is sent with (`None` for a public
/// operation): the one `spec` names, else the first configured; an OAuth
/// token is refused where the operation accepts API keys only.
fn credential<'c>(
    config: &'c ClientConfig,
    operation: &Operation,
    spec: &RequestSpec,
) -> Result<Option<&'c ClientCredential>, ClientError> {
    if operation.credential == CredentialPolicy::Public {
        return Ok(None);
    }
    let credential = match &spec.credential {
        Some(id) => config
            .credentials
            .iter()
            .find(|credential| &credential.id == id)
            .ok_or_else(|| ClientError::UnknownCredential {
                credential: id.clone(),
            })?,
        None => config
            .credentials
            .first()
            .ok_or_else(|| ClientError::NoCredential {
                operation: operation.id.clone(),
            })?,
    };
    if operation.credential == CredentialPolicy::ApiKeyOnly
        && credential.kind == CredentialKind::OAuthToken
    {
        return Err(ClientError::CredentialNotAccepted {
            operation: operation.id.clone(),
            credential: credential.id.clone(),
        });
    }
    Ok(Some(credential))
}

/// The header `credential` goes in: an API key in `X-API-Key` (or as a
/// bearer token when the client says so, except for operations that take
/// API keys only, which take them in `X-API-Key` only); a token as bearer.
fn credential_header(
    config: &ClientConfig,
    operation: &Operation,
    credential: &ClientCredential,
) -> (String, String) {
    let secret = credential.secret.expose();
    let header_form = match operation.credential {
        CredentialPolicy::ApiKeyOnly => ApiKeyHeader::XApiKey,
        _ => config.api_key_header,
    };
    match (credential.kind, header_form) {
        (CredentialKind::ApiKey, ApiKeyHeader::XApiKey) => (X_API_KEY.into(), secret.into()),
        _ => (AUTHORIZATION.into(), format!("Bearer {secret}")),
    }
}

/// Step 5: the URL the path hangs off, and the stable-egress header when
/// stable egress is asked for by header.
fn root(
    config: &ClientConfig,
    operation: &Operation,
    egress: EgressMode,
    headers: &mut Vec<(String, String)>,
) -> Result<String, ClientError> {
    let unavailable = |problem: &str| ClientError::StableEgressUnavailable {
        operation: operation.id.clone(),
        problem: problem.to_owned(),
    };
    let api_root = || format!("{}/api/{}", config.base_url, config.version);
    if operation.outside_root && egress == EgressMode::Default {
        return Ok(config.base_url.clone());
    }
    match egress {
        EgressMode::Default => Ok(api_root()),
        EgressMode::Header | EgressMode::Url if !operation.stable_egress => Err(unavailable(
            "the operation is not served through stable egress",
        )),
        EgressMode::Header => {
            headers.push((config.stable_egress_header.clone(), "true".into()));
            Ok(api_root())
        }
        EgressMode::Url => match &config.stable_egress_url {
            Some(url) => Ok(format!("{url}/{}", config.version)),
            None => Err(unavailable(
                "no stable_egress_url is configured; set it or use EgressMode::Header",
            )),
        },
    }
}

/// Whether `method` is safe (RFC 9110 §9.2.1): it never gets a key.
fn is_safe_method(method: &str) -> bool {
    matches!(method, "GET" | "HEAD" | "OPTIONS")
}

/// Step 6: the caller's key, else an automatic one when the client and the
/// operation both opt in and the method is not safe, else none.
fn idempotency_key(
    config: &ClientConfig,
    operation: &Operation,
    spec: &RequestSpec,
    keys: &mut KeyStream,
) -> Option<String> {
    match &spec.idempotency_key {
        Some(key) => Some(key.clone()),
        None if config.idempotency_keys
            && operation.honours_idempotency_key
            && !is_safe_method(&operation.method) =>
        {
            Some(keys.next_key())
        }
        None => None,
    }
}

/// Step 7: the limits the request counts against, by the model's rule from
/// the decoded values it sends. The client's own address is one bucket, so
/// that limit's key is its name; every other key is `name:subject`.
fn limits(
    config: &ClientConfig,
    operation: &Operation,
    sender: Option<&ClientCredential>,
    path_params: &[(String, String)],
) -> Vec<LimitRef> {
    let settings = LimitSettings {
        credential: config.credential_quota,
        client_ip: config.client_ip_quota,
    };
    settings
        .applicable(&RequestFacts {
            operation,
            credential: sender.map(|credential| CredentialFacts {
                id: &credential.id,
                user: &credential.user,
            }),
            client_ip: "",
            path_params,
        })
        .into_iter()
        .map(|applied| LimitRef {
            key: if applied.name == CLIENT_IP_LIMIT_NAME {
                applied.name.clone()
            } else {
                format!("{}:{}", applied.name, applied.subject)
            },
            name: applied.name,
            quota: applied.quota,
        })
        .collect()
}
