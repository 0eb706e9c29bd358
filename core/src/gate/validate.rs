//! Step 6's inputs: path segments decoded strictly, the stable-egress
//! header, and the query parsed against the operation's parameters. Every
//! problem is collected, none stops the others.

use super::request::GateRequest;
use crate::model::query::{decode_component, parse_query};
use crate::model::{Operation, ParamProblem, Params};

/// The decoded path parameters, by name, and the problems of those that do
/// not decode.
pub(crate) fn decode_path(
    operation: &Operation,
    raw_params: &[&[u8]],
) -> (Vec<(String, String)>, Vec<ParamProblem>) {
    let mut values = Vec::new();
    let mut problems = Vec::new();
    for (name, raw) in operation.path.param_names().zip(raw_params) {
        match decode_path_segment(raw) {
            Ok(value) => values.push((name.to_owned(), value)),
            Err(problem) => problems.push(ParamProblem::new(name, problem)),
        }
    }
    (values, problems)
}

/// The query's parameters, defaults applied, or every problem in it.
pub(crate) fn query(raw_query: &[u8], operation: &Operation) -> Result<Params, Vec<ParamProblem>> {
    parse_query(raw_query, &operation.params)
}

/// Whether the stable-egress header `name` asks for stable egress:
/// absent or `false` → no, `true` → yes, anything else is a problem.
pub(crate) fn stable_egress_header(
    request: &GateRequest,
    name: &str,
) -> Result<bool, ParamProblem> {
    let values: Vec<&[u8]> = request.header_all(name).collect();
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
