//! No way of printing or serialising a request, a header list, an event or
//! an error shows a credential; the explicitly named wire form keeps it.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    redact_headers, Client, ClientConfig, ClientCredential, ClientError, Entropy, HttpResponse,
    Outcome, RequestSpec,
};

const KEY: &str = "acd_live_super_secret_key";
const TOKEN: &str = "acd_oat_super_secret_token";

fn client() -> Client {
    let config = ClientConfig {
        seed: Some(1),
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key("main", KEY, "ada"))
    .with_credential(ClientCredential::oauth_token("token", TOKEN, "ada"));
    Client::new(config, Entropy::from_seed(1)).unwrap()
}

fn shows_no_secret(text: &str) {
    assert!(!text.contains("super_secret"), "a secret is shown: {text}");
}

#[test]
fn requests_headers_events_and_errors_never_show_a_secret() {
    let mut client = client();
    shows_no_secret(&format!("{client:?}"));
    for credential in ["main", "token"] {
        let id = client
            .start(RequestSpec::list_table_records("t").credential(credential))
            .unwrap();
        let transmit = client.poll_transmit(1_700_000_000_000).unwrap();
        let request = &transmit.request;
        shows_no_secret(&format!("{transmit:?}"));
        shows_no_secret(&format!("{request:?}"));
        shows_no_secret(&serde_json::to_string(request).unwrap());
        shows_no_secret(&serde_json::to_string_pretty(request).unwrap());
        shows_no_secret(&format!("{:?}", redact_headers(&request.headers)));
        shows_no_secret(&serde_json::to_string(&redact_headers(&request.headers)).unwrap());
        let redacted = serde_json::to_value(request).unwrap();
        assert_eq!(redacted["headers"][1][1], "<redacted>");
        // The wire form is the one place the secret is, byte for byte.
        let wire = request.to_wire_json();
        let expected = if credential == "main" {
            format!(r#"["X-API-Key","{KEY}"]"#)
        } else {
            format!(r#"["Authorization","Bearer {TOKEN}"]"#)
        };
        assert!(wire.contains(&expected), "{wire}");
        assert_eq!(
            request.to_wire_value()["headers"][1][1]
                .as_str()
                .map(|v| v.ends_with("secret_key") || v.ends_with("secret_token")),
            Some(true)
        );
        // A 401 that echoes nothing secret; its error and events stay clean.
        let body = r#"{"detail":"The credential is not valid.","status":401}"#;
        client
            .handle(
                id,
                Outcome::Response(HttpResponse::new(401, body)),
                1_700_000_000_010,
            )
            .unwrap();
        while let Some(event) = client.poll_event() {
            shows_no_secret(&format!("{event:?}"));
            shows_no_secret(&serde_json::to_string(&event).unwrap());
        }
    }
}

#[test]
fn configuration_errors_name_the_field_not_the_secret() {
    let config = ClientConfig::default()
        .with_credential(ClientCredential::api_key(
            "a",
            "acd_live_super_secret_1",
            "ada",
        ))
        .with_credential(ClientCredential::api_key(
            "a",
            "acd_live_super_secret_2",
            "ada",
        ));
    let error = Client::new(config.clone(), Entropy::from_seed(1)).unwrap_err();
    shows_no_secret(&error.to_string());
    shows_no_secret(&format!("{error:?}"));
    shows_no_secret(&serde_json::to_string(&error).unwrap());
    shows_no_secret(&format!("{config:?}"));
    assert!(
        matches!(error, ClientError::InvalidConfig { ref field, .. } if field == "credentials")
    );
}
