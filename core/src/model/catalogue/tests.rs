//! Tests of the catalogue: the built-in entries and the clients' runs.

use super::*;

/// Every built-in entry passes the checks a caller's catalogue meets,
/// and its template is the one its text parses to: a bad entry is a
/// failed test here, never a silently smaller catalogue.
#[test]
fn every_built_in_entry_is_well_formed() {
    let names = ParamNames {
        offset: "skip".into(),
        limit: "take".into(),
        direction: "dir".into(),
        after: "from".into(),
        entity_id: "entity".into(),
        filter: "where".into(),
    };
    for catalogue in [
        Catalogue::standard(),
        Catalogue::for_clients(),
        Catalogue::with_names(&names),
    ] {
        let operations = catalogue.operations().to_vec();
        assert_eq!(Catalogue::new(operations), Ok(catalogue.clone()));
        for operation in catalogue.operations() {
            let text = operation.path.to_string();
            assert_eq!(
                PathTemplate::parse(&text),
                Ok(operation.path.clone()),
                "{text}"
            );
        }
    }
    let paths: Vec<String> = Catalogue::for_clients()
        .operations()
        .iter()
        .map(|operation| format!("{} {}", operation.method, operation.path))
        .collect();
    assert_eq!(
        paths,
        [
            "GET ",
            "GET /tables/{id}",
            "GET /connections/{connection_id}/records",
            "POST /agents/{agent_id}/runs",
            "GET /runs/{run_id}"
        ]
    );
    let renamed = Catalogue::with_names(&names);
    let tables = renamed.get("listTableRecords").unwrap();
    let table_params: Vec<&str> = tables.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(table_params, ["skip", "take", "order_by", "dir", "from"]);
    let connections = renamed.get("listConnectionRecords").unwrap();
    let connection_params: Vec<&str> = connections.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(connection_params, ["entity", "skip", "take", "where"]);
}

#[test]
fn the_client_catalogue_adds_the_runs_and_the_gate_keeps_the_three() {
    let ids_of = |catalogue: &Catalogue| -> Vec<String> {
        catalogue
            .operations()
            .iter()
            .map(|operation| operation.id.clone())
            .collect()
    };
    assert_eq!(
        ids_of(&Catalogue::standard()),
        ["getApiIndex", "listTableRecords", "listConnectionRecords"]
    );
    assert_eq!(
        ids_of(&Catalogue::for_clients()),
        [
            "getApiIndex",
            "listTableRecords",
            "listConnectionRecords",
            "createAgentRun",
            "getRun"
        ]
    );
    let run = Catalogue::get_run();
    assert_eq!(
        (run.method.as_str(), run.path.to_string()),
        ("GET", "/runs/{run_id}".to_owned())
    );
    assert_eq!(run.envelope, Envelope::Data);
    // The clients' catalogue has the runs: createAgentRun with its
    // per-agent limit (30 per 60 s) and getRun.
    let mut catalogue = Catalogue::for_clients();
    let create = catalogue.get("createAgentRun").unwrap().clone();
    assert_eq!(
        (create.method.as_str(), create.path.to_string()),
        ("POST", "/agents/{agent_id}/runs".to_owned())
    );
    assert_eq!(create.extra_limits.len(), 1);
    assert_eq!(create.extra_limits[0].quota.requests, 30);
    assert_eq!(create.extra_limits[0].quota.window_ms, 60_000);
    assert_eq!(
        create.extra_limits[0].per,
        LimitSubject::PathParam("agent_id".into())
    );
    assert!(catalogue.get("getRun").is_some());
    // Adding one again, as older callers did by hand, replaces it (one
    // entry stays); a list with one id twice is still refused.
    let count = catalogue.operations().len();
    let mut keyed = Catalogue::create_agent_run();
    keyed.honours_idempotency_key = true;
    assert_eq!(catalogue.add(Catalogue::get_run()), Ok(()));
    assert_eq!(catalogue.add(keyed), Ok(()));
    assert_eq!(catalogue.operations().len(), count);
    assert!(
        catalogue
            .get("createAgentRun")
            .unwrap()
            .honours_idempotency_key
    );
    assert_eq!(
        Catalogue::new(vec![Catalogue::get_run(), Catalogue::get_run()]),
        Err(CatalogueError::DuplicateId("getRun".into()))
    );
}
