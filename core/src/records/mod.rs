//! One record-serving semantics, used by the simulation's server and the
//! sandbox alike: ordering, the `after` lower bound, connection filters,
//! offset and page size. Parameters are read by role from the admitted
//! request's [`Params`], so the names come from the admitted operation.
//!
//! The rules where the spec leaves them open:
//! * `order_by` sorts numbers by value (integers exactly, even past 2^53),
//!   then strings by bytes, then booleans (`false` first), then arrays and
//!   objects; rows without the column (or with `null`) come last. `desc`
//!   reverses that order. Rows that compare equal keep their stored order
//!   in both directions. An unknown column is not an error: every row
//!   lacks it. Without `order_by`, rows come in stored order and
//!   `direction` and `after` are ignored.
//! * `after` (with `order_by`) keeps the rows whose column is strictly
//!   greater: numbers when `after` reads as a finite number (`NaN` and
//!   `inf` do not, so no number is greater than them), strings by bytes;
//!   any other row (another type, no value) is left out.
//! * A connection `filter` is a JSON object of field → exact value (numbers
//!   compare by value, so `1` matches `1.0`); anything else is a problem
//!   named after the operation's filter parameter.
//! * The page is `offset` rows in, at most `limit` long; a missing limit
//!   (an operation without one) serves [`DEFAULT_PAGE_SIZE`] rows.

use crate::model::catalogue::DEFAULT_PAGE_SIZE;
use crate::model::{ParamProblem, ParamRole, Params};
use serde_json::{Map, Number, Value};
use std::cmp::Ordering;

/// One record, with its JSON bytes kept so that pages are built by copying.
#[derive(Debug, Clone, PartialEq)]
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

    /// A record from any JSON value; a value that is not an object is
    /// served as it is and has no fields (it sorts last, matches no filter
    /// with members).
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::Object(fields) => Self::new(fields),
            other => Self {
                json: serde_json::to_vec(&other).unwrap_or_else(|_| b"null".to_vec()),
                fields: Map::new(),
            },
        }
    }

    /// The record's fields.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// The record's JSON bytes.
    pub fn json(&self) -> &[u8] {
        &self.json
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

/// A JSON number (or an `after` bound) held exactly: integers as `i128`,
/// everything else as a finite `f64`.
#[derive(Debug, Clone, Copy)]
enum Exact {
    Integer(i128),
    Float(f64),
}

impl Exact {
    fn of(number: &Number) -> Self {
        match (number.as_i64(), number.as_u64()) {
            (Some(n), _) => Self::Integer(i128::from(n)),
            (None, Some(n)) => Self::Integer(i128::from(n)),
            // serde_json numbers are finite; 0.0 is the harmless fallback.
            _ => Self::Float(number.as_f64().unwrap_or(0.0)),
        }
    }

    /// A total order by value: `1` equals `1.0`, `-0.0` equals `0`, and
    /// integers past 2^53 compare exactly against floats too.
    fn cmp(self, other: Self) -> Ordering {
        match (self, other) {
            (Self::Integer(x), Self::Integer(y)) => x.cmp(&y),
            (Self::Float(x), Self::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            (Self::Integer(x), Self::Float(y)) => integer_vs_float(x, y),
            (Self::Float(x), Self::Integer(y)) => integer_vs_float(y, x).reverse(),
        }
    }
}

/// Compares an integer with a finite float exactly.
fn integer_vs_float(integer: i128, float: f64) -> Ordering {
    // Beyond ±2^126 no i128 from JSON (at most 2^64) can reach the float.
    const FAR: f64 = 8.507_059_173_023_462e37; // 2^126
    if float >= FAR {
        return Ordering::Less;
    }
    if float <= -FAR {
        return Ordering::Greater;
    }
    let floor = float.floor();
    // `floor` is integral and inside ±2^126, so the conversion is exact.
    #[allow(clippy::cast_possible_truncation)]
    let whole = floor as i128;
    match integer.cmp(&whole) {
        Ordering::Equal if float > floor => Ordering::Less,
        order => order,
    }
}

fn compare_numbers(x: &Number, y: &Number) -> Ordering {
    Exact::of(x).cmp(Exact::of(y))
}

/// The order of `order_by`: numbers, strings, booleans, arrays, objects,
/// then missing or `null` (see the module documentation).
pub fn compare_values(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => compare_numbers(x, y),
        (Some(Value::String(x)), Some(Value::String(y))) => x.cmp(y),
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// The `after` bound, read once.
struct After<'a> {
    text: &'a str,
    number: Option<Exact>,
}

impl<'a> After<'a> {
    fn new(text: &'a str) -> Self {
        let number = match text.parse::<i128>() {
            Ok(integer) => Some(Exact::Integer(integer)),
            Err(_) => text
                .parse::<f64>()
                .ok()
                .filter(|bound| bound.is_finite())
                .map(Exact::Float),
        };
        Self { text, number }
    }

    /// Whether `value` is strictly greater than the bound.
    fn admits(&self, value: Option<&Value>) -> bool {
        match (value, self.number) {
            (Some(Value::Number(number)), Some(bound)) => {
                Exact::of(number).cmp(bound) == Ordering::Greater
            }
            (Some(Value::String(text)), _) => text.as_str() > self.text,
            _ => false,
        }
    }
}

/// Every row a table read with `params` selects, in the order it serves
/// them, before `offset` and `limit`.
pub fn table_order<'a>(records: &'a [Record], params: &Params) -> Vec<&'a Record> {
    let mut rows: Vec<&Record> = records.iter().collect();
    let Some(column) = params.order_by() else {
        return rows;
    };
    if let Some(after) = params.after() {
        let after = After::new(after);
        rows.retain(|record| after.admits(record.fields.get(column)));
    }
    if params.descending() {
        rows.sort_by(|a, b| compare_values(b.fields.get(column), a.fields.get(column)));
    } else {
        rows.sort_by(|a, b| compare_values(a.fields.get(column), b.fields.get(column)));
    }
    rows
}

/// The rows of one page: `offset` in, at most `limit` (default
/// [`DEFAULT_PAGE_SIZE`]).
pub fn page_of<T>(rows: impl IntoIterator<Item = T>, params: &Params) -> Vec<T> {
    let offset = usize::try_from(params.offset().unwrap_or(0)).unwrap_or(usize::MAX);
    let limit = usize::try_from(params.limit().unwrap_or(DEFAULT_PAGE_SIZE)).unwrap_or(usize::MAX);
    rows.into_iter().skip(offset).take(limit).collect()
}

fn json_array<'a>(rows: impl IntoIterator<Item = &'a Record>) -> Vec<u8> {
    let mut body = Vec::with_capacity(256);
    body.push(b'[');
    for (n, record) in rows.into_iter().enumerate() {
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
    json_array(page_of(table_order(records, params), params))
}

/// Whether two JSON values are the same value (numbers by value).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare_numbers(x, y) == Ordering::Equal,
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

/// The rows a connection read with `params` selects (its filter applied),
/// before `offset` and `limit`, or the filter's problem.
pub fn connection_rows<'a>(
    records: &'a [Record],
    params: &Params,
) -> Result<Vec<&'a Record>, ParamProblem> {
    let name = params.name_of(ParamRole::Filter).unwrap_or("filter");
    let filter = match params.filter() {
        None => None,
        Some(text) => match serde_json::from_slice::<Value>(text.as_bytes()) {
            Ok(Value::Object(filter)) => Some(filter),
            Ok(other) => {
                return Err(ParamProblem::new(
                    name,
                    format!(
                        "must be a JSON object of field to exact value, such as \
                         {{\"city\":\"Paris\"}}; got {}",
                        kind(&other)
                    ),
                ))
            }
            Err(error) => {
                return Err(ParamProblem::new(
                    name,
                    format!("must be valid JSON ({error})"),
                ))
            }
        },
    };
    Ok(records
        .iter()
        .filter(|record| {
            filter.as_ref().is_none_or(|filter| {
                filter.iter().all(|(field, wanted)| {
                    record
                        .fields
                        .get(field)
                        .is_some_and(|value| same(value, wanted))
                })
            })
        })
        .collect())
}

/// The JSON array of one page of a connection read, or the filter's problem.
pub fn connection_page(records: &[Record], params: &Params) -> Result<Vec<u8>, ParamProblem> {
    Ok(json_array(page_of(
        connection_rows(records, params)?,
        params,
    )))
}

#[cfg(test)]
mod tests;
