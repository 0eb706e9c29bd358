//! Checks on an [`ApiIndex`] that its types cannot express.

use super::index::{ApiIndex, IndexError};
use super::url::is_absolute_uri;

fn fail(path: impl Into<String>, problem: impl Into<String>) -> Result<(), IndexError> {
    Err(IndexError {
        path: path.into(),
        problem: problem.into(),
    })
}

fn uri(path: &str, text: &str) -> Result<(), IndexError> {
    if is_absolute_uri(text) {
        Ok(())
    } else {
        fail(
            path,
            format!("{text:?} is not an absolute URI (it needs a scheme such as https://)"),
        )
    }
}

fn optional_uri(path: &str, text: Option<&String>) -> Result<(), IndexError> {
    text.map_or(Ok(()), |text| uri(path, text))
}

/// A resource URL may hold `{name}` path templates; they are checked as if
/// each were a plain segment.
fn template_uri(path: &str, text: &str) -> Result<(), IndexError> {
    let mut plain = String::with_capacity(text.len());
    let mut in_placeholder = false;
    for character in text.chars() {
        match (character, in_placeholder) {
            ('{', false) => in_placeholder = true,
            ('}', true) => {
                in_placeholder = false;
                plain.push('x');
            }
            ('{', true) | ('}', false) => {
                return fail(path, format!("{text:?} has unbalanced '{{' or '}}'"))
            }
            (_, true) => {}
            (other, false) => plain.push(other),
        }
    }
    if in_placeholder {
        return fail(path, format!("{text:?} has an unclosed '{{'"));
    }
    uri(path, &plain)
}

pub(crate) fn check(index: &ApiIndex) -> Result<(), IndexError> {
    if index.name.trim().is_empty() {
        return fail("name", "must not be empty");
    }
    if index.version.is_empty() {
        return fail("version", "must not be empty");
    }
    if index.version != index.versioning.current_version {
        return fail(
            "versioning.current_version",
            format!(
                "is {:?} but `version` is {:?}; both report the current major version",
                index.versioning.current_version, index.version
            ),
        );
    }
    uri("base_url", &index.base_url)?;
    uri("documentation_url", &index.documentation_url)?;
    uri("openapi_url", &index.openapi_url)?;
    uri("developers_url", &index.developers_url)?;
    optional_uri("llms_txt_url", index.llms_txt_url.as_ref())?;
    optional_uri(
        "webhooks_documentation_url",
        index.webhooks_documentation_url.as_ref(),
    )?;
    if index.authentication.methods.is_empty() {
        return fail(
            "authentication.methods",
            "must list at least one credential type",
        );
    }
    for (position, method) in index.authentication.methods.iter().enumerate() {
        let at = |field: &str| format!("authentication.methods[{position}].{field}");
        uri(&at("documentation_url"), &method.documentation_url)?;
        optional_uri(&at("metadata_url"), method.metadata_url.as_ref())?;
    }
    uri(
        "onboarding.access_request_url",
        &index.onboarding.access_request_url,
    )?;
    if index.onboarding.trial.duration_days < 1 {
        return fail(
            "onboarding.trial.duration_days",
            format!(
                "is {} but must be at least 1",
                index.onboarding.trial.duration_days
            ),
        );
    }
    let limits = &index.rate_limits;
    if limits.requests < 0 {
        return fail("rate_limits.requests", "must not be negative");
    }
    if limits.window_seconds < 1 {
        return fail("rate_limits.window_seconds", "must be at least 1");
    }
    optional_uri(
        "rate_limits.documentation_url",
        limits.documentation_url.as_ref(),
    )?;
    if let Some(days) = index.versioning.minimum_sunset_notice_days {
        if days < 0 {
            return fail(
                "versioning.minimum_sunset_notice_days",
                "must not be negative",
            );
        }
    }
    optional_uri(
        "versioning.documentation_url",
        index.versioning.documentation_url.as_ref(),
    )?;
    for (name, url) in &index.resources {
        template_uri(&format!("resources.{name}"), url)?;
    }
    if let Some(clients) = &index.clients {
        optional_uri("clients.cli", clients.cli.as_ref())?;
        optional_uri(
            "clients.cli_documentation_url",
            clients.cli_documentation_url.as_ref(),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_templates_are_uris_with_placeholders() {
        assert!(template_uri("r", "https://h/api/v1/tables/{id}").is_ok());
        assert!(template_uri("r", "https://h/{id").is_err());
    }
}
