//! A call by HTTP method and raw request target, as `acd api METHOD PATH`
//! takes it: routed through the catalogue's [`Router`] (the gate's own), so
//! a target names the same operation on both sides and brings its limits
//! and validators; a target no operation serves becomes an unlisted
//! operation ([`Operation::unlisted`]) the client adds to its catalogue.
//! [`CallSpec::pages_of`] turns a request of a paged read into its pager.
//!
//! The target forms: `/api/{version}/...`; a path relative to the version
//! root (`tables/orders?limit=2`, also `/tables/orders` when that is a
//! route of the catalogue); any other path with a leading slash hangs off
//! the base URL itself (`/openapi.json`). A target holding a space, CR, LF
//! or another control character is refused before anything is sent.

use super::config::ClientConfig;
use super::error::ClientError;
use super::paging::{ConnectionPagerOptions, TablePagerOptions};
use super::request::RequestSpec;
use super::wire::CallSpec;
use crate::model::ids::{LIST_CONNECTION_RECORDS, LIST_TABLE_RECORDS};
use crate::model::{
    decode_component, Catalogue, Operation, ParamRole, PathTemplate, Route, Router,
};

fn refuse(input: &str, problem: String) -> ClientError {
    ClientError::InvalidInput {
        input: input.to_owned(),
        problem,
    }
}

/// The request path's component `raw`, percent-decoded.
fn decoded(raw: &[u8], target: &str) -> Result<String, ClientError> {
    decode_component(raw)
        .map(std::borrow::Cow::into_owned)
        .map_err(|problem| refuse("request path", format!("{target:?}: {problem}")))
}

impl ClientConfig {
    /// The request of `method` on `target` (see the module's forms), its
    /// query given by name as written. A target no operation serves adds
    /// an unlisted operation to this configuration's catalogue (under the
    /// per-credential limit when the client has a credential). Refused,
    /// before anything is sent, with an `invalid_request` error naming the
    /// problem: a method that is not letters, a target holding a space or a
    /// control character, a bad percent-encoding.
    pub fn route_target(&mut self, method: &str, target: &str) -> Result<RequestSpec, ClientError> {
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(refuse(
                "HTTP method",
                format!("{method:?} is not an HTTP method; give one like GET"),
            ));
        }
        let method = method.to_ascii_uppercase();
        if let Some(bad) = target.chars().find(|c| c.is_whitespace() || c.is_control()) {
            return Err(refuse(
                "request path",
                format!(
                    "{target:?} is not a usable path: it holds {bad:?} (a space, CR, LF or \
                     other control character); percent-encode it (a space is %20) and try again"
                ),
            ));
        }
        let root = format!("/api/{}", self.version);
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let under_root = path == root || path.starts_with(&format!("{root}/"));
        let rooted = |relative: &str| format!("{root}/{}", relative.trim_start_matches('/'));
        let router = Router::new(self.version.clone(), None);
        let candidate = if under_root {
            path.to_owned()
        } else {
            rooted(path)
        };
        let found = match router.route(&self.catalogue, &method, candidate.as_bytes()) {
            Route::Matched {
                operation,
                raw_params,
                ..
            } => {
                let mut spec = RequestSpec::new(operation.id.clone());
                for (name, raw) in operation.path.param_names().zip(raw_params) {
                    spec = spec.path(name, decoded(raw, target)?);
                }
                Some(spec)
            }
            _ => None,
        };
        let mut spec = match found {
            Some(spec) => spec,
            None => {
                // Outside the root only with a leading slash that is no route under it.
                let outside = !under_root && path.starts_with('/');
                let shown = if outside {
                    path.to_owned()
                } else {
                    format!(
                        "/{}",
                        candidate
                            .get(root.len()..)
                            .unwrap_or_default()
                            .trim_start_matches('/')
                    )
                };
                let template = PathTemplate::parse(&shown).map_err(|error| {
                    refuse(
                        "request path",
                        format!("{target:?} is not a usable path: {error}"),
                    )
                })?;
                let credentialed = !self.credentials.is_empty();
                self.catalogue
                    .add(Operation::unlisted(
                        &method,
                        template,
                        credentialed,
                        outside,
                    ))
                    .map_err(|error| {
                        refuse(
                            "request path",
                            format!("{target:?} cannot be called: {error}"),
                        )
                    })?;
                RequestSpec::new(crate::model::ids::UNLISTED)
            }
        };
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            spec = spec.query(
                decoded(name.as_bytes(), target)?,
                decoded(value.as_bytes(), target)?,
            );
        }
        Ok(spec)
    }
}

impl CallSpec {
    /// The pager of `spec`, a request of a paged read (table records or a
    /// connection's records): its page size, order, direction, filter and
    /// entity from the request's query, read by the parameters' roles in
    /// `catalogue`. Refused (`invalid_request`) for any other operation, and
    /// for a query parameter a pager sets itself (it reads from the first
    /// record).
    pub fn pages_of(spec: &RequestSpec, catalogue: &Catalogue) -> Result<CallSpec, ClientError> {
        let paged = |operation: &&Operation| {
            operation.id == LIST_TABLE_RECORDS || operation.id == LIST_CONNECTION_RECORDS
        };
        let Some(operation) = catalogue.get(&spec.operation).filter(paged) else {
            return Err(refuse(
                "paged call",
                format!(
                    "operation {:?} is not a paged read; only table records (GET tables/{{id}}) \
                     and a connection's records (GET connections/{{connection_id}}/records) page",
                    spec.operation
                ),
            ));
        };
        let role_of = |name: &str| {
            operation
                .params
                .iter()
                .find(|param| param.name == name)
                .map(|param| param.role)
        };
        let mut page_size = None;
        let mut order_by = None;
        let mut descending = false;
        let mut filter = None;
        let mut entity = None;
        for (name, value) in &spec.query {
            match role_of(name) {
                Some(ParamRole::Limit) => {
                    page_size = Some(value.parse::<u64>().map_err(|_| {
                        refuse(
                            "paged call",
                            format!("{name}={value:?} is not a whole number of records per page"),
                        )
                    })?);
                }
                Some(ParamRole::OrderBy) => order_by = Some(value.clone()),
                Some(ParamRole::Direction) => descending = value.eq_ignore_ascii_case("desc"),
                Some(ParamRole::Filter) => filter = Some(value.clone()),
                Some(ParamRole::EntityId) => entity = Some(value.clone()),
                _ => {
                    return Err(refuse(
                        "paged call",
                        format!(
                        "a pager reads from the first record; {name} cannot be combined with it"
                    ),
                    ))
                }
            }
        }
        let first_path_value = operation
            .path
            .param_names()
            .next()
            .and_then(|name| spec.path.iter().find(|(given, _)| given == name))
            .map(|(_, value)| value.clone())
            .unwrap_or_default();
        if operation.id == LIST_TABLE_RECORDS {
            let defaults = TablePagerOptions::default();
            return Ok(CallSpec::table_pages(
                first_path_value,
                TablePagerOptions {
                    page_size: page_size.unwrap_or(defaults.page_size),
                    order_by,
                    descending,
                    credential: spec.credential.clone(),
                    ..defaults
                },
            ));
        }
        let Some(entity) = entity else {
            return Err(refuse(
                "paged call",
                "a connection's records page by entity; give the entity in the query".into(),
            ));
        };
        Ok(CallSpec::connection_pages(
            first_path_value,
            entity,
            ConnectionPagerOptions {
                page_size: page_size.unwrap_or(ConnectionPagerOptions::default().page_size),
                filter,
                egress: spec.egress,
                credential: spec.credential.clone(),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_route_as_the_gate_routes_them() {
        let mut config = ClientConfig::default();
        let spec = config.route_target("get", "tables/a%20b?limit=2").unwrap();
        assert_eq!(spec.operation, LIST_TABLE_RECORDS);
        assert_eq!(spec.path, [("id".to_owned(), "a b".to_owned())]);
        assert_eq!(spec.query, [("limit".to_owned(), "2".to_owned())]);
        let same = config
            .route_target("GET", "/api/v1/tables/a%20b?limit=2")
            .unwrap();
        assert_eq!(same, spec);
        let slash = config.route_target("GET", "/tables/a%20b?limit=2").unwrap();
        assert_eq!(slash, spec);
        let outside = config.route_target("GET", "/openapi.json").unwrap();
        assert_eq!(outside.operation, crate::model::ids::UNLISTED);
        assert!(
            config
                .catalogue
                .get(crate::model::ids::UNLISTED)
                .unwrap()
                .outside_root
        );
    }

    #[test]
    fn a_space_or_a_line_break_in_the_target_is_refused_before_sending() {
        for target in ["tables/a b", "tables/a\r\nX: y", "tables/a\n"] {
            let error = ClientConfig::default()
                .route_target("GET", target)
                .unwrap_err();
            assert_eq!(
                error.category(),
                crate::client::ErrorCategory::InvalidRequest
            );
            assert!(error.to_string().contains("percent-encode"), "{error}");
        }
    }

    #[test]
    fn only_paged_reads_page() {
        let mut config = ClientConfig::default();
        let spec = config
            .route_target("GET", "tables/orders?limit=3&order_by=id")
            .unwrap();
        let pages = CallSpec::pages_of(&spec, &config.catalogue).unwrap();
        let CallSpec::TablePages(call) = pages else {
            panic!("a table pager")
        };
        assert_eq!(
            (call.pager.page_size, call.pager.order_by.as_deref()),
            (3, Some("id"))
        );
        let run = config.route_target("GET", "runs/r1").unwrap();
        let error = CallSpec::pages_of(&run, &config.catalogue).unwrap_err();
        assert_eq!(
            error.category(),
            crate::client::ErrorCategory::InvalidRequest
        );
    }
}
