//! Tests of paging, ordering, the `after` bound and connection filters.

use super::*;
use acd_core::model::query::parse_query;
use acd_core::model::Catalogue;
use serde_json::json;

fn params(operation: &str, query: &str) -> Params {
    let catalogue = Catalogue::standard();
    parse_query(query.as_bytes(), &catalogue.get(operation).unwrap().params).unwrap()
}

fn rows(values: Value) -> Vec<Record> {
    values
        .as_array()
        .unwrap()
        .iter()
        .map(|row| Record::new(row.as_object().unwrap().clone()))
        .collect()
}

fn table(query: &str) -> String {
    let records = rows(json!([
        {"k": 10}, {"k": "b"}, {"k": 2.5}, {}, {"k": "a"}, {"k": true}, {"k": null}, {"k": 10.0}
    ]));
    String::from_utf8(table_page(&records, &params("listTableRecords", query))).unwrap()
}

#[test]
fn order_by_sorts_numbers_then_strings_then_others_missing_last() {
    assert_eq!(
        table("order_by=k"),
        r#"[{"k":2.5},{"k":10},{"k":10.0},{"k":"a"},{"k":"b"},{"k":true},{},{"k":null}]"#
    );
    assert_eq!(
        table("order_by=k&direction=desc"),
        r#"[{},{"k":null},{"k":true},{"k":"b"},{"k":"a"},{"k":10},{"k":10.0},{"k":2.5}]"#
    );
    assert_eq!(
        table("order_by=k&offset=2&limit=2"),
        r#"[{"k":10.0},{"k":"a"}]"#
    );
    assert_eq!(table("order_by=unknown&limit=2"), r#"[{"k":10},{"k":"b"}]"#);
    assert_eq!(
        table("direction=desc&after=5&limit=2"),
        r#"[{"k":10},{"k":"b"}]"#
    );
}

#[test]
fn after_compares_numbers_numerically_and_strings_lexically() {
    assert_eq!(
        table("order_by=k&after=3"),
        r#"[{"k":10},{"k":10.0},{"k":"a"},{"k":"b"}]"#
    );
    assert_eq!(table("order_by=k&after=a"), r#"[{"k":"b"}]"#);
    assert_eq!(table("order_by=k&after=10"), r#"[{"k":"a"},{"k":"b"}]"#);
    assert_eq!(table("order_by=k&after=z"), "[]");
    // "inf" is no finite number: numbers are not compared, strings are.
    assert_eq!(table("order_by=k&after=inf"), "[]");
    assert_eq!(table("order_by=k&after=Inf"), r#"[{"k":"a"},{"k":"b"}]"#);
}

fn connection(query: &str) -> Result<String, ParamProblem> {
    let records = rows(json!([
        {"city": "Paris", "n": 1, "tags": ["a"]},
        {"city": "Lisbon", "n": 2.0},
        {"city": "Paris", "n": 2, "tags": ["b"]}
    ]));
    connection_page(&records, &params("listConnectionRecords", query))
        .map(|page| String::from_utf8(page).unwrap())
}

#[test]
fn filters_match_exact_values() {
    assert_eq!(
        connection("entity_id=e&filter=%7B%22n%22%3A2%7D").unwrap(),
        r#"[{"city":"Lisbon","n":2.0},{"city":"Paris","n":2,"tags":["b"]}]"#
    );
    assert_eq!(
        connection(r#"entity_id=e&filter={"city":"Paris","tags":["a"]}"#).unwrap(),
        r#"[{"city":"Paris","n":1,"tags":["a"]}]"#
    );
    assert_eq!(
        connection(r#"entity_id=e&filter={}&offset=1&limit=1"#).unwrap(),
        r#"[{"city":"Lisbon","n":2.0}]"#
    );
    assert_eq!(
        connection(r#"entity_id=e&filter={"missing":null}"#).unwrap(),
        "[]"
    );
}

#[test]
fn a_filter_that_is_not_an_object_is_a_problem() {
    assert_eq!(
        connection("entity_id=e&filter=%5B1%5D").unwrap_err(),
        ParamProblem::new(
            "filter",
            "must be a JSON object of field to exact value, such as {\"city\":\"Paris\"}; got an array"
        )
    );
    assert!(connection("entity_id=e&filter=%22x%22")
        .unwrap_err()
        .problem
        .ends_with("got a string"));
}
