//! The `webhooks` member of the configuration and the `--webhook` flags:
//! endpoints (url, secret, event types) and the delivery faults applied
//! with `--faults`.

use crate::config::{fail, ConfigError};
use acd_core::webhooks::{RunEventType, Secret, GENERATED_SECRET_BYTES};
use serde::Deserialize;

/// Endpoints at most (the core planner's bound).
pub const MAX_ENDPOINTS: usize = acd_core::webhooks::MAX_ENDPOINTS;

/// One endpoint as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// Where deliveries are POSTed: an `http://` URL.
    pub url: String,
    /// `whsec_...`; absent: one is generated and printed in the banner.
    #[serde(default)]
    pub secret: Option<String>,
    /// The event types sent (e.g. `["run.succeeded", "run.failed"]`);
    /// absent or empty: every type.
    #[serde(default)]
    pub event_types: Vec<String>,
}

/// The delivery faults applied with `--faults`: each attempt draws each
/// fault with its probability from a generator seeded by `seed`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveryFaults {
    /// The generator's seed.
    #[serde(default)]
    pub seed: u64,
    /// The request is sent twice (same id and signature).
    #[serde(default = "default_probability")]
    pub duplicate: f64,
    /// The request is held back `hold_ms` so that later ones overtake it.
    #[serde(default = "default_probability")]
    pub out_of_order: f64,
    /// The request is sent `delay_ms` late.
    #[serde(default = "default_probability")]
    pub delayed: f64,
    /// The request carries a signature made with another secret.
    #[serde(default = "default_probability")]
    pub wrong_signature: f64,
    /// How late a delayed request is, ms (real time).
    #[serde(default = "default_delay_ms")]
    pub delay_ms: u64,
}

fn default_probability() -> f64 {
    0.1
}

fn default_delay_ms() -> u64 {
    1_000
}

impl Default for DeliveryFaults {
    fn default() -> Self {
        Self {
            seed: 0,
            duplicate: default_probability(),
            out_of_order: default_probability(),
            delayed: default_probability(),
            wrong_signature: default_probability(),
            delay_ms: default_delay_ms(),
        }
    }
}

/// The `webhooks` member.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhooksConfig {
    /// The endpoints.
    #[serde(default)]
    pub endpoints: Vec<EndpointConfig>,
    /// The delivery faults (with `--faults` only; absent: 0.1 each).
    #[serde(default)]
    pub faults: Option<DeliveryFaults>,
}

/// An endpoint, checked, with its secret.
#[derive(Debug, Clone)]
pub struct CheckedEndpoint {
    /// The URL.
    pub url: String,
    /// The secret.
    pub secret: Secret,
    /// Whether the secret was generated (then the banner shows it).
    pub generated: bool,
    /// The event types; empty for all.
    pub event_types: Vec<String>,
}

fn check_url(path: &str, url: &str) -> Result<(), ConfigError> {
    let parsed: Result<hyper::Uri, _> = url.parse();
    match parsed {
        Ok(uri) if uri.scheme_str() == Some("http") && uri.host().is_some() => Ok(()),
        _ => fail(
            path,
            format!("{url:?} is not an http:// URL, e.g. http://127.0.0.1:9000/hooks"),
        ),
    }
}

fn generated_secret() -> Secret {
    let mut bytes = [0u8; GENERATED_SECRET_BYTES];
    if getrandom::fill(&mut bytes).is_err() {
        bytes.iter_mut().for_each(|b| *b = fastrand::u8(..));
    }
    Secret::from_entropy(bytes)
}

fn check_endpoint(path: &str, endpoint: &EndpointConfig) -> Result<CheckedEndpoint, ConfigError> {
    check_url(&format!("{path}.url"), &endpoint.url)?;
    for (n, kind) in endpoint.event_types.iter().enumerate() {
        if RunEventType::parse(kind).is_none() {
            let known: Vec<&str> = RunEventType::ALL.iter().map(|k| k.as_str()).collect();
            return fail(
                format!("{path}.event_types[{n}]"),
                format!(
                    "{kind:?} is not an event type; the types are: {}",
                    known.join(", ")
                ),
            );
        }
    }
    let (secret, generated) = match &endpoint.secret {
        Some(text) => match Secret::parse(text) {
            Ok(secret) => (secret, false),
            Err(error) => return fail(format!("{path}.secret"), error.to_string()),
        },
        None => (generated_secret(), true),
    };
    Ok(CheckedEndpoint {
        url: endpoint.url.clone(),
        secret,
        generated,
        event_types: endpoint.event_types.clone(),
    })
}

impl WebhooksConfig {
    /// The endpoints of the file and of `--webhook URL` (signed with
    /// `--webhook-secret`, or a generated secret), checked.
    pub fn endpoints(
        &self,
        flag_urls: &[String],
        flag_secret: Option<&str>,
    ) -> Result<Vec<CheckedEndpoint>, ConfigError> {
        let mut out = Vec::new();
        for (n, endpoint) in self.endpoints.iter().enumerate() {
            out.push(check_endpoint(
                &format!("webhooks.endpoints[{n}]"),
                endpoint,
            )?);
        }
        let shared = match flag_secret {
            Some(text) => Some(Secret::parse(text).map_err(|error| ConfigError {
                path: "--webhook-secret".into(),
                problem: error.to_string(),
            })?),
            None => None,
        };
        let flag_generated = generated_secret();
        for url in flag_urls {
            check_url("--webhook", url)?;
            out.push(CheckedEndpoint {
                url: url.clone(),
                secret: shared.clone().unwrap_or_else(|| flag_generated.clone()),
                generated: shared.is_none(),
                event_types: Vec::new(),
            });
        }
        if out.len() > MAX_ENDPOINTS {
            return fail(
                "webhooks.endpoints",
                format!("at most {MAX_ENDPOINTS} endpoints (with --webhook)"),
            );
        }
        if let Some(faults) = &self.faults {
            for (name, p) in [
                ("duplicate", faults.duplicate),
                ("out_of_order", faults.out_of_order),
                ("delayed", faults.delayed),
                ("wrong_signature", faults.wrong_signature),
            ] {
                if !(0.0..=1.0).contains(&p) {
                    return fail(format!("webhooks.faults.{name}"), "must be between 0 and 1");
                }
            }
            if faults.delay_ms > 60_000 {
                return fail(
                    "webhooks.faults.delay_ms",
                    "must be at most 60000 (1 minute)",
                );
            }
        }
        Ok(out)
    }
}
