//! Pages of records: ordering, the `after` lower bound, filters, offsets.
//!
//! The rules the sandbox chose where the spec leaves them open:
//! * `order_by` sorts numbers numerically, then strings lexically (by
//!   bytes), then booleans, arrays and objects; rows without the column (or
//!   with `null`) come last. `desc` reverses that order. Ties keep the stored
//!   order. An unknown column is not an error: every row lacks it.
//! * `after` (with `order_by`) keeps rows whose column is greater: numbers
//!   when `after` reads as a finite number, strings lexically; any other
//!   row (another type, no value) is not "greater" and is left out.
//! * A connection `filter` is a JSON object of field → exact value (numbers
//!   compare by value, so `1` matches `1.0`); anything else is a 400.

use acd_core::model::{ParamNames, ParamProblem, Params};
use serde_json::{Map, Value};
use std::cmp::Ordering;

/// One record, with its JSON bytes kept so that pages are built by copying.
#[derive(Debug)]
pub struct Record {
    fields: Map<String, Value>,
    json: Vec<u8>,
}

impl Record {
    /// A record of `fields`.
    pub fn new(fields: Map<String, Value>) -> Self {
        let json = serde_json::to_vec(&fields).unwrap_or_else(|_| b"{}".to_vec());
        Self { fields, json }
    }
}

fn rank(value: Option<&Value>) -> u8 {
    match value {
        Some(Value::Number(_)) => 0,
        Some(Value::String(_)) => 1,
        Some(Value::Bool(_)) => 2,
        Some(Value::Array(_)) => 3,
        Some(Value::Object(_)) => 4,
        Some(Value::Null) | None => 5,
    }
}

fn compare(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.total_cmp(&y)
        }
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn is_after(value: Option<&Value>, after: &str, after_number: Option<f64>) -> bool {
    match value {
        Some(Value::Number(number)) => match (number.as_f64(), after_number) {
            (Some(x), Some(bound)) => x > bound,
            _ => false,
        },
        Some(Value::String(text)) => text.as_str() > after,
        _ => false,
    }
}

fn page<'a>(rows: impl Iterator<Item = &'a Record>, params: &Params) -> Vec<u8> {
    let offset = usize::try_from(params.offset().unwrap_or(0)).unwrap_or(usize::MAX);
    let limit = usize::try_from(params.limit().unwrap_or(100)).unwrap_or(usize::MAX);
    let mut body = Vec::with_capacity(256);
    body.push(b'[');
    for (n, record) in rows.skip(offset).take(limit).enumerate() {
        if n > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&record.json);
    }
    body.push(b']');
    body
}

/// The JSON array of one page of a table read.
pub fn table_page(records: &[Record], params: &Params) -> Vec<u8> {
    let Some(column) = params.order_by() else {
        return page(records.iter(), params);
    };
    let mut rows: Vec<&Record> = records.iter().collect();
    if let Some(after) = params.after() {
        let bound = after.parse::<f64>().ok().filter(|bound| bound.is_finite());
        rows.retain(|record| is_after(record.fields.get(column), after, bound));
    }
    if params.descending() {
        rows.sort_by(|a, b| compare(b.fields.get(column), a.fields.get(column)));
    } else {
        rows.sort_by(|a, b| compare(a.fields.get(column), b.fields.get(column)));
    }
    page(rows.into_iter(), params)
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
        }
        _ => a == b,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The JSON array of one page of a connection read, or the filter's problem.
pub fn connection_page(records: &[Record], params: &Params) -> Result<Vec<u8>, ParamProblem> {
    let filter = match params.filter() {
        None => None,
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(filter)) => Some(filter),
            Ok(other) => {
                return Err(ParamProblem::new(
                    ParamNames::default().filter,
                    format!(
                        "must be a JSON object of field to exact value, such as \
                         {{\"city\":\"Paris\"}}; got {}",
                        kind(&other)
                    ),
                ))
            }
            Err(error) => {
                return Err(ParamProblem::new(
                    ParamNames::default().filter,
                    format!("must be valid JSON ({error})"),
                ))
            }
        },
    };
    let rows = records.iter().filter(|record| {
        filter.as_ref().is_none_or(|filter| {
            filter.iter().all(|(field, wanted)| {
                record
                    .fields
                    .get(field)
                    .is_some_and(|value| same(value, wanted))
            })
        })
    });
    Ok(page(rows, params))
}

#[cfg(test)]
mod tests;
