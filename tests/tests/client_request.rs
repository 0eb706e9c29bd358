//! Client requests and responses against the real gate: what the client
//! builds is what the gate routes, validation matches the gate's sentence
//! for sentence, and deprecation headers surface once per operation.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    build_request, ApiKeyHeader, ApiResponse, Client, ClientConfig, ClientCredential, ClientError,
    ClientRequest, EgressMode, Entropy, Event, HttpResponse, KeyStream, Outcome, RequestSpec,
};
use acd_core::gate::demo::{ADA_KEY, ADA_TOKEN};
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
use acd_core::model::DeprecationNotice;
use acd_core::model::ParamRole;

const NOW: u64 = 1_700_000_000_000;

/// Builds requests the way the driver does, without a driver.
struct Builder {
    config: ClientConfig,
    keys: KeyStream,
}

impl Builder {
    fn new(config: ClientConfig) -> Self {
        config.check().unwrap();
        Self {
            config,
            keys: KeyStream::from_seed(0),
        }
    }

    fn build(&mut self, spec: &RequestSpec) -> Result<ClientRequest, ClientError> {
        build_request(&self.config, spec, &mut self.keys)
    }
}

fn client_with(credentials: Vec<ClientCredential>) -> Builder {
    Builder::new(ClientConfig {
        credentials,
        ..ClientConfig::default()
    })
}

fn driver(config: ClientConfig) -> Client {
    Client::new(config, Entropy::from_seed(0)).unwrap()
}

/// Sends one call through `client` to `gate` at `now`; its events.
fn call(client: &mut Client, gate: &Gate, spec: RequestSpec, now: u64) -> Vec<Event> {
    let id = client.start(spec).unwrap();
    let transmit = client.poll_transmit(now).unwrap();
    let response = match gate.decide(&to_gate(&transmit.request), now) {
        Decision::FetchResource(admitted) => {
            admitted.respond(ResourceAnswer::Found(b"[]".to_vec()))
        }
        Decision::Reply(response) => response,
    };
    client
        .handle(id, Outcome::Response(response.into()), now)
        .unwrap();
    std::iter::from_fn(|| client.poll_event())
        .map(|(_, event)| event)
        .collect()
}

fn ada() -> ClientCredential {
    ClientCredential::api_key("main", ADA_KEY, "ada")
}

fn token() -> ClientCredential {
    ClientCredential::oauth_token("token", ADA_TOKEN, "ada")
}

fn to_gate(request: &acd_core::client::ClientRequest) -> GateRequest {
    GateRequest {
        method: request.method.clone(),
        target: request.target().as_bytes().to_vec(),
        headers: request
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), v.as_bytes().to_vec()))
            .collect(),
        client_ip: "203.0.113.9".into(),
    }
}

#[test]
fn urls_encode_path_segments_and_query_values() {
    let mut client = client_with(vec![ada()]);
    let spec = RequestSpec::list_table_records("orders/2024 é")
        .param(ParamRole::OrderBy, "created at")
        .param(ParamRole::After, "a&b=c")
        .param(ParamRole::Limit, "50");
    let request = client.build(&spec).unwrap();
    assert_eq!(
        request.url,
        "http://127.0.0.1:8080/api/v1/tables/orders%2F2024%20%C3%A9?order_by=created%20at&after=a%26b%3Dc&limit=50"
    );
    assert_eq!(request.header("X-API-Key"), Some(ADA_KEY));
    assert_eq!(request.header("Accept"), Some("application/json"));
    assert!(request.idempotency_key.is_none(), "GETs need no key");
    assert_eq!(
        request
            .limits
            .iter()
            .map(|l| l.key.as_str())
            .collect::<Vec<_>>(),
        ["credential:main", "user_table_reads:ada"]
    );
    // The gate routes and decodes it back to the same values.
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let Decision::FetchResource(admitted) = gate.decide(&to_gate(&request), NOW) else {
        panic!("admitted")
    };
    assert_eq!(admitted.path_param("id"), Some("orders/2024 é"));
    assert_eq!(admitted.params().after(), Some("a&b=c"));
    assert_eq!(admitted.params().order_by(), Some("created at"));
}

#[test]
fn a_bad_page_size_fails_before_io_with_the_gates_own_sentence() {
    let mut client = client_with(vec![ada()]);
    let spec = RequestSpec::list_table_records("orders").param(ParamRole::Limit, "5001");
    let ClientError::InvalidParams { problems, .. } = client.build(&spec).unwrap_err() else {
        panic!("invalid params")
    };
    // The gate, asked the same thing, says the same thing.
    let gate = Gate::demo(GateConfig::default()).unwrap();
    let request = GateRequest::get("/api/v1/tables/orders?limit=5001", "203.0.113.9")
        .with_header("X-API-Key", ADA_KEY);
    let Decision::Reply(response) = gate.decide(&request, NOW) else {
        panic!("refused")
    };
    let body: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(body["errors"][0]["problem"], problems[0].problem);
    assert_eq!(
        problems[0].problem,
        "must be an integer from 1 to 5000; got \"5001\""
    );
    let unknown = client
        .build(&RequestSpec::list_table_records("t").query("pagesize", "10"))
        .unwrap_err();
    assert!(unknown
        .to_string()
        .contains("pagesize is not a parameter of this operation"));
}

#[test]
fn credentials_follow_their_kind_and_oauth_is_refused_for_connection_records() {
    let mut client = client_with(vec![token(), ada()]);
    let table = client.build(&RequestSpec::list_table_records("t")).unwrap();
    assert_eq!(
        table.header("Authorization"),
        Some(format!("Bearer {ADA_TOKEN}").as_str())
    );
    let refused = client
        .build(&RequestSpec::list_connection_records("c1", "e1"))
        .unwrap_err();
    assert_eq!(
        refused,
        ClientError::CredentialNotAccepted {
            operation: "listConnectionRecords".into(),
            credential: "token".into()
        }
    );
    let with_key = client
        .build(&RequestSpec::list_connection_records("c1", "e1").credential("main"))
        .unwrap();
    assert_eq!(with_key.header("X-API-Key"), Some(ADA_KEY));
    // The index is public: no credential header at all.
    let index = client.build(&RequestSpec::get_api_index()).unwrap();
    assert_eq!(index.url, "http://127.0.0.1:8080/api/v1");
    assert!(index.header("X-API-Key").is_none() && index.header("Authorization").is_none());
    assert_eq!(index.limits[0].key, "client_ip");
    let mut bearer = ClientConfig::default().with_credential(ada());
    bearer.api_key_header = ApiKeyHeader::Bearer;
    let mut bearer_client = Builder::new(bearer);
    let request = bearer_client
        .build(&RequestSpec::list_table_records("t"))
        .unwrap();
    assert_eq!(
        request.header("Authorization"),
        Some(format!("Bearer {ADA_KEY}").as_str())
    );
    // Connection records take the API key in X-API-Key only, whatever the setting.
    let connection = bearer_client
        .build(&RequestSpec::list_connection_records("c1", "e1"))
        .unwrap();
    assert_eq!(connection.header("X-API-Key"), Some(ADA_KEY));
    assert_eq!(connection.header("Authorization"), None);
    assert!(
        !format!("{request:?}").contains(ADA_KEY),
        "Debug hides credentials"
    );
    assert_eq!(
        client_with(vec![]).build(&RequestSpec::list_table_records("t")),
        Err(ClientError::NoCredential {
            operation: "listTableRecords".into()
        })
    );
}

#[test]
fn stable_egress_by_header_or_by_url_reaches_the_gate_as_stable_egress() {
    let mut client = client_with(vec![ada()]);
    let gate = Gate::demo(GateConfig::default()).unwrap();
    for (mode, url) in [
        (
            EgressMode::Header,
            "http://127.0.0.1:8080/api/v1/connections/c%201/records?entity_id=e",
        ),
        (
            EgressMode::Url,
            "http://127.0.0.1:8080/egress/v1/connections/c%201/records?entity_id=e",
        ),
    ] {
        let request = client
            .build(&RequestSpec::list_connection_records("c 1", "e").egress(mode))
            .unwrap();
        assert_eq!(request.url, url);
        let Decision::FetchResource(admitted) = gate.decide(&to_gate(&request), NOW) else {
            panic!("admitted")
        };
        assert!(admitted.stable_egress());
    }
    let refused = client
        .build(&RequestSpec::list_table_records("t").egress(EgressMode::Header))
        .unwrap_err();
    assert!(matches!(
        refused,
        ClientError::StableEgressUnavailable { .. }
    ));
}

#[test]
fn posts_get_a_uuid_v4_key_only_when_the_client_and_the_operation_opt_in() {
    let mut create = acd_core::model::Catalogue::create_agent_run();
    let spec = RequestSpec::new("createAgentRun")
        .path("agent_id", "a1")
        .body(br#"{"input":"x"}"#.to_vec());
    let mut config = ClientConfig::default().with_credential(ada());
    config.catalogue.add(create.clone()).unwrap();
    // Default: no automatic key.
    let plain = Builder::new(config.clone()).build(&spec).unwrap();
    assert_eq!(plain.idempotency_key, None);
    assert_eq!(plain.header("Idempotency-Key"), None);
    assert!(!plain.is_idempotent());
    // The client opts in, the operation does not: still none.
    config.idempotency_keys = true;
    assert_eq!(
        Builder::new(config.clone())
            .build(&spec)
            .unwrap()
            .idempotency_key,
        None
    );
    // Both opt in: one UUIDv4 per logical call.
    create.honours_idempotency_key = true;
    config.catalogue = acd_core::model::Catalogue::standard();
    config.catalogue.add(create).unwrap();
    let mut builder = Builder::new(config);
    let first = builder.build(&spec).unwrap();
    let second = builder.build(&spec).unwrap();
    let key = first.idempotency_key.clone().unwrap();
    let bytes: Vec<char> = key.chars().collect();
    assert_eq!(bytes.len(), 36);
    assert_eq!(
        (bytes[8], bytes[13], bytes[14], bytes[18], bytes[23]),
        ('-', '-', '4', '-', '-')
    );
    assert!(
        matches!(bytes[19], '8' | '9' | 'a' | 'b'),
        "RFC 9562 variant: {key}"
    );
    assert_ne!(first.idempotency_key, second.idempotency_key);
    assert_eq!(first.header("Idempotency-Key"), Some(key.as_str()));
    assert_eq!(first.header("Content-Type"), Some("application/json"));
    assert_eq!(first.limits[1].key, "agent_runs:a1");
    let given = builder
        .build(&spec.clone().idempotency_key("mine"))
        .unwrap();
    assert_eq!(given.header("Idempotency-Key"), Some("mine"));
}

#[test]
fn direction_without_order_by_is_sent_with_a_warning() {
    let mut client = client_with(vec![ada()]);
    let request = client
        .build(&RequestSpec::list_table_records("t").param(ParamRole::Direction, "desc"))
        .unwrap();
    assert_eq!(
        request.warnings,
        ["direction has no effect without order_by; the server ignores it"]
    );
}

#[test]
fn deprecation_headers_become_one_notice_per_operation() {
    let gate_config = GateConfig {
        version_deprecation: Some(DeprecationNotice {
            deprecated_at: 1_690_000_000,
            sunset_at: Some(1_720_000_000),
        }),
        ..GateConfig::default()
    };
    let gate = Gate::demo(gate_config).unwrap();
    let mut client = driver(ClientConfig::default().with_credential(ada()));
    let mut notices = Vec::new();
    for _ in 0..3 {
        let events = call(
            &mut client,
            &gate,
            RequestSpec::list_table_records("t"),
            NOW,
        );
        assert!(events.iter().any(|e| matches!(
            e,
            Event::Response {
                response: ApiResponse::Records { .. },
                ..
            }
        )));
        assert_eq!(events.last(), Some(&Event::Done));
        notices.extend(events.into_iter().filter_map(|e| match e {
            Event::Deprecation(notice) => Some(notice),
            _ => None,
        }));
    }
    assert_eq!(notices.len(), 1, "once per operation, not per response");
    assert_eq!(notices[0].operation_id, "listTableRecords");
    assert_eq!(notices[0].sunset_at, Some(1_720_000_000));
    assert!(notices[0].malformed.is_empty());
}

#[test]
fn an_index_response_teaches_the_throttle_the_advertised_limit() {
    let mut gate_config = GateConfig::default();
    gate_config.limits.credential = acd_core::limit::Quota::per_seconds(3, 60);
    let gate = Gate::demo(gate_config).unwrap();
    let mut client = driver(ClientConfig::default().with_credential(ada()));
    let events = call(&mut client, &gate, RequestSpec::get_api_index(), NOW);
    assert!(matches!(
        events[0],
        Event::Response {
            response: ApiResponse::Index { .. },
            ..
        }
    ));
    // Before any authenticated response, the client already plans with 3/60 s.
    let spec = RequestSpec::list_connection_records("c", "e");
    for second in 0..3 {
        let id = client.start(spec.clone()).unwrap();
        assert_eq!(client.poll_transmit(NOW + second).map(|t| t.id), Some(id));
    }
    let fourth = client.start(spec).unwrap();
    assert_eq!(client.poll_transmit(NOW + 3), None);
    // The three sends are in flight: their answers will tell when the
    // server's window ends, so the fourth's wait is not said yet, but the
    // client wakes at the window's end (plus a jitter of at most the
    // backoff base, 1 s) at the latest.
    assert!(
        client.poll_event().is_none(),
        "a provisional wait is not said"
    );
    let wake = client.poll_timeout().unwrap();
    assert!(
        (NOW + 60_000..=NOW + 61_000).contains(&wake.as_millis()),
        "{wake}"
    );
    let model = client
        .throttle()
        .models()
        .find(|model| model.name == "credential")
        .unwrap();
    assert_eq!((model.limit, model.remaining, model.in_flight), (3, 0, 3));
    let _ = fourth;
}

#[test]
fn client_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Client>();
    check::<Event>();
    check::<acd_core::client::Transmit>();
    check::<ClientRequest>();
    check::<ClientError>();
    check::<HttpResponse>();
}
