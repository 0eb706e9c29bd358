//! The built-in demo data: Ada's and Bob's tables and connections. The demo
//! credentials themselves live in `acd_core::gate::demo`, shared with the
//! examples and the conformance vectors.

use crate::store::{Connection, Table};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Ada's table of orders.
pub const ORDERS: &str = "orders";
/// Bob's table (invisible to Ada: 404).
pub const INVOICES: &str = "invoices";
/// Ada's CRM connection.
pub const CRM: &str = "crm";
/// Bob's ERP connection (invisible to Ada: 404).
pub const ERP: &str = "erp";
/// An entity of the CRM connection.
pub const CONTACTS: &str = "contacts";

fn objects(rows: Value) -> Vec<Map<String, Value>> {
    match rows {
        Value::Array(rows) => rows
            .into_iter()
            .filter_map(|row| match row {
                Value::Object(fields) => Some(fields),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The demo tables.
pub fn tables() -> Vec<Table> {
    let orders = json!([
        {"id": 1, "customer": "Acme", "total": 120.5, "status": "shipped", "created_at": "2024-01-03"},
        {"id": 2, "customer": "Globex", "total": 75, "status": "pending", "created_at": "2024-01-05"},
        {"id": 3, "customer": "Initech", "total": 310, "status": "shipped", "created_at": "2024-01-08"},
        {"id": 4, "customer": "Umbrella", "total": 42.25, "status": "cancelled", "created_at": "2024-01-09"},
        {"id": 5, "customer": "Hooli", "total": 980, "status": "shipped", "created_at": "2024-01-12"},
        {"id": 6, "customer": "Acme", "total": 15, "status": "pending", "created_at": "2024-01-15"},
        {"id": 7, "customer": "Soylent", "total": 560, "status": "shipped", "created_at": "2024-01-18"},
        {"id": 8, "customer": "Globex", "total": 230, "status": "shipped", "created_at": "2024-01-21"}
    ]);
    let invoices = json!([
        {"id": "INV-1", "amount": 1200, "paid": true},
        {"id": "INV-2", "amount": 300, "paid": false}
    ]);
    vec![
        Table::new(ORDERS.into(), "ada".into(), objects(orders)),
        Table::new(INVOICES.into(), "bob".into(), objects(invoices)),
    ]
}

/// The demo connections.
pub fn connections() -> Vec<Connection> {
    let contacts = json!([
        {"id": "c1", "name": "Alice Martin", "city": "Paris", "vip": true},
        {"id": "c2", "name": "Bruno Costa", "city": "Lisbon", "vip": false},
        {"id": "c3", "name": "Chloé Durand", "city": "Paris", "vip": false},
        {"id": "c4", "name": "Dmitri Ivanov", "city": "Berlin", "vip": true},
        {"id": "c5", "name": "Eva Novak", "city": "Prague", "vip": false}
    ]);
    let deals = json!([
        {"id": "d1", "contact_id": "c1", "stage": "won", "amount": 5000},
        {"id": "d2", "contact_id": "c4", "stage": "open", "amount": 1200},
        {"id": "d3", "contact_id": "c3", "stage": "lost", "amount": 800}
    ]);
    let parts = json!([
        {"sku": "P-100", "name": "Bolt", "stock": 1200},
        {"sku": "P-200", "name": "Nut", "stock": 3400}
    ]);
    let crm = BTreeMap::from([
        (CONTACTS.to_owned(), objects(contacts)),
        ("deals".to_owned(), objects(deals)),
    ]);
    let erp = BTreeMap::from([("parts".to_owned(), objects(parts))]);
    vec![
        Connection::new(CRM.into(), "ada".into(), crm),
        Connection::new(ERP.into(), "bob".into(), erp),
    ]
}
