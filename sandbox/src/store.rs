//! The sandbox's data store: tables and connections, read-only after
//! start-up, and the resource answers the gate asks for.
//!
//! Visibility: a table or connection is visible to its owner only; anyone
//! else gets the same 404 as for one that does not exist.

use acd_core::gate::{Admitted, GateResponse, ResourceAnswer};
use acd_core::model::ids;
use acd_core::records::{self, Record};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// One table: its owner and records, in stored order.
#[derive(Debug)]
pub struct Table {
    id: String,
    owner: String,
    records: Vec<Record>,
}

impl Table {
    /// A table of `records` owned by user `owner`.
    pub fn new(id: String, owner: String, records: Vec<Map<String, Value>>) -> Self {
        Self {
            id,
            owner,
            records: records.into_iter().map(Record::new).collect(),
        }
    }
}

/// One connection: its owner and the records of each entity.
#[derive(Debug)]
pub struct Connection {
    id: String,
    owner: String,
    entities: BTreeMap<String, Vec<Record>>,
}

impl Connection {
    /// A connection owned by user `owner`.
    pub fn new(
        id: String,
        owner: String,
        entities: BTreeMap<String, Vec<Map<String, Value>>>,
    ) -> Self {
        Self {
            id,
            owner,
            entities: entities
                .into_iter()
                .map(|(entity, records)| (entity, records.into_iter().map(Record::new).collect()))
                .collect(),
        }
    }
}

/// Every table and connection, by id.
#[derive(Debug, Default)]
pub struct Store {
    tables: HashMap<String, Table>,
    connections: HashMap<String, Connection>,
}

impl Store {
    /// A store of `tables` and `connections` (ids are unique; checked by the config).
    pub fn new(tables: Vec<Table>, connections: Vec<Connection>) -> Self {
        Self {
            tables: tables
                .into_iter()
                .map(|table| (table.id.clone(), table))
                .collect(),
            connections: connections
                .into_iter()
                .map(|connection| (connection.id.clone(), connection))
                .collect(),
        }
    }

    /// Answers an admitted request from the data.
    pub fn respond(&self, admitted: Admitted) -> GateResponse {
        match admitted.operation_id() {
            ids::LIST_TABLE_RECORDS => self.table(admitted),
            ids::LIST_CONNECTION_RECORDS => self.connection(admitted),
            _ => admitted.respond(ResourceAnswer::NotFound),
        }
    }

    fn table(&self, admitted: Admitted) -> GateResponse {
        let user = admitted.principal().user();
        let table = admitted
            .path_param("id")
            .and_then(|id| self.tables.get(id))
            .filter(|table| Some(table.owner.as_str()) == user);
        match table {
            Some(table) => {
                let page = records::table_page(&table.records, admitted.params());
                admitted.respond(ResourceAnswer::Found(page))
            }
            None => admitted.respond(ResourceAnswer::NotFound),
        }
    }

    fn connection(&self, admitted: Admitted) -> GateResponse {
        let user = admitted.principal().user();
        let connection = admitted
            .path_param("connection_id")
            .and_then(|id| self.connections.get(id))
            .filter(|connection| Some(connection.owner.as_str()) == user);
        let Some(connection) = connection else {
            return admitted.respond(ResourceAnswer::NotFound);
        };
        let entity_id = admitted.params().entity_id().unwrap_or_default();
        let Some(entity) = connection.entities.get(entity_id) else {
            let known: Vec<&str> = connection.entities.keys().map(String::as_str).collect();
            let detail = format!(
                "Connection {:?} has no entity {entity_id:?}; its entities are: {}.",
                connection.id,
                known.join(", ")
            );
            return admitted.respond_not_found(detail);
        };
        match records::connection_page(entity, admitted.params()) {
            Ok(page) => admitted.respond(ResourceAnswer::Found(page)),
            Err(problem) => admitted.respond(ResourceAnswer::Invalid(vec![problem])),
        }
    }
}
