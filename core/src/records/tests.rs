//! Tests of paging, ordering, the `after` bound and connection filters.

use super::*;
use crate::model::query::parse_query;
use crate::model::Catalogue;
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

#[test]
fn integers_past_2_pow_53_order_exactly_and_after_compares_them_exactly() {
    let records = rows(json!([
        {"k": 9007199254740993u64}, {"k": 9007199254740992u64}, {"k": -1}, {"k": 18446744073709551615u64}
    ]));
    let page = |query: &str| {
        String::from_utf8(table_page(&records, &params("listTableRecords", query))).unwrap()
    };
    assert_eq!(
        page("order_by=k"),
        r#"[{"k":-1},{"k":9007199254740992},{"k":9007199254740993},{"k":18446744073709551615}]"#
    );
    assert_eq!(
        page("order_by=k&after=9007199254740992"),
        r#"[{"k":9007199254740993},{"k":18446744073709551615}]"#
    );
}

#[test]
fn integers_and_floats_compare_by_exact_value() {
    let big = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let order = |a: &str, b: &str| compare_values(Some(&big(a)), Some(&big(b)));
    assert_eq!(
        order("9007199254740993", "9007199254740992.0"),
        Ordering::Greater
    );
    assert_eq!(order("1", "1.0"), Ordering::Equal);
    assert_eq!(order("0", "-0.0"), Ordering::Equal);
    assert_eq!(order("-1", "-0.5"), Ordering::Less);
    assert_eq!(order("18446744073709551615", "1e300"), Ordering::Less);
}

#[test]
fn nan_is_no_bound_for_numbers_and_ties_keep_stored_order_both_ways() {
    // NaN bounds no number; strings still compare by bytes ("N" < "a").
    assert_eq!(table("order_by=k&after=NaN"), r#"[{"k":"a"},{"k":"b"}]"#);
    let records = rows(json!([{"k": 1, "n": "first"}, {"k": 1, "n": "second"}, {"k": 0}]));
    let page = |query: &str| {
        String::from_utf8(table_page(&records, &params("listTableRecords", query))).unwrap()
    };
    assert_eq!(
        page("order_by=k"),
        r#"[{"k":0},{"k":1,"n":"first"},{"k":1,"n":"second"}]"#
    );
    assert_eq!(
        page("order_by=k&direction=desc"),
        r#"[{"k":1,"n":"first"},{"k":1,"n":"second"},{"k":0}]"#
    );
}

#[test]
fn the_default_page_size_is_100_and_the_filter_problem_uses_the_operations_name() {
    let records = rows(Value::Array(
        (0..150).map(|n| json!({"n": n})).collect::<Vec<_>>(),
    ));
    let page = table_page(&records, &Params::default());
    let served: Value = serde_json::from_slice(&page).unwrap();
    assert_eq!(served.as_array().map(Vec::len), Some(100));

    let names = crate::model::ParamNames {
        filter: "where".into(),
        ..Default::default()
    };
    let catalogue = Catalogue::with_names(&names);
    let spec = &catalogue.get("listConnectionRecords").unwrap().params;
    let params = parse_query(b"entity_id=e&where=%5B1%5D", spec).unwrap();
    assert_eq!(
        connection_page(&records, &params).unwrap_err().parameter,
        "where"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|n| json!(n)),
            // Floats next to large integers, where f64 rounding would lie.
            (9_007_199_254_740_990u64..9_007_199_254_740_996).prop_map(|n| json!(n as f64)),
            (9_007_199_254_740_990u64..9_007_199_254_740_996).prop_map(|n| json!(n)),
            Just(json!(-0.0)),
            Just(json!(0)),
            "[a-c]{0,2}".prop_map(|s| json!(s)),
            any::<bool>().prop_map(|b| json!(b)),
            Just(Value::Null),
        ]
    }

    fn table_rows() -> impl Strategy<Value = Vec<Record>> {
        prop::collection::vec(prop::option::of(value()), 0..40).prop_map(|keys| {
            keys.into_iter()
                .enumerate()
                .map(|(n, key)| {
                    let mut fields = Map::new();
                    fields.insert("n".into(), json!(n));
                    if let Some(key) = key {
                        fields.insert("k".into(), key);
                    }
                    Record::new(fields)
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_order_is_antisymmetric_and_transitive(a in value(), b in value(), c in value()) {
            prop_assert_eq!(
                compare_values(Some(&a), Some(&b)),
                compare_values(Some(&b), Some(&a)).reverse()
            );
            if compare_values(Some(&a), Some(&b)) != Ordering::Greater
                && compare_values(Some(&b), Some(&c)) != Ordering::Greater
            {
                prop_assert_ne!(compare_values(Some(&a), Some(&c)), Ordering::Greater);
            }
        }

        /// Offset paging over any order serves every row exactly once.
        #[test]
        fn offset_pages_serve_every_row_exactly_once(
            records in table_rows(),
            limit in 1u64..7,
            descending in any::<bool>(),
        ) {
            let direction = if descending { "desc" } else { "asc" };
            let mut served = Vec::new();
            let mut offset = 0;
            loop {
                let query = format!("order_by=k&direction={direction}&offset={offset}&limit={limit}");
                let page: Value =
                    serde_json::from_slice(&table_page(&records, &params("listTableRecords", &query)))
                        .unwrap();
                let page = page.as_array().unwrap().clone();
                let full = page.len() as u64 == limit;
                served.extend(page.into_iter().map(|row| row["n"].as_u64().unwrap()));
                if !full {
                    break;
                }
                offset += limit;
            }
            served.sort_unstable();
            prop_assert_eq!(served, (0..records.len() as u64).collect::<Vec<_>>());
        }

        /// `after` keeps exactly the rows that sort strictly after the bound
        /// among numbers and strings.
        #[test]
        fn after_keeps_what_is_strictly_greater(records in table_rows(), bound in -5i64..5) {
            let query = format!("order_by=k&after={bound}&limit=5000");
            let kept = table_order(&records, &params("listTableRecords", &query));
            let expected = records
                .iter()
                .filter(|record| match record.fields().get("k") {
                    Some(Value::Number(number)) => compare_numbers(number, &Number::from(bound)) == Ordering::Greater,
                    Some(Value::String(text)) => text.as_str() > bound.to_string().as_str(),
                    _ => false,
                })
                .count();
            prop_assert_eq!(kept.len(), expected);
        }
    }
}
