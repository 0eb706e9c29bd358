//! `acd listen`: receives webhook deliveries on loopback, verifies each
//! with acd-core (`Verifier`: the secrets of `--secret`, the core's
//! tolerance, the wall clock), prints one line per delivery and forwards
//! the verified ones unchanged to `--forward-to`.
//!
//! Lines (stdout): `<webhook-id> <type> <run id or -> verified` (with
//! `, forwarded: <status>` when forwarding), or `<webhook-id or -> - -
//! rejected <code>: <sentence>`. Answers: 400 for a delivery that does not
//! verify; for a verified one 204 without `--forward-to`, else the forward
//! target's status (502 when it cannot be reached), so that the sender's
//! retries apply to the handler behind. Bodies are read up to one byte past
//! the core's payload bound, so a huge body costs bounded memory.

use crate::exit;
use crate::webhooks::{agent, parse_secrets, wall_clock, ListenArgs};
use acd_core::webhooks::{Verifier, WebhookEvent, HEADER_ID, MAX_PAYLOAD_BYTES};
use std::io::Read;
use tiny_http::{Header, Method, Request, Response, Server};

/// Runs `acd listen` until interrupted: the exit status when it cannot start.
pub fn listen(args: &ListenArgs) -> u8 {
    let verifier = match parse_secrets(&args.secrets)
        .and_then(|secrets| Verifier::new(secrets).map_err(|error| format!("--secret: {error}")))
    {
        Ok(verifier) => verifier,
        Err(error) => {
            eprintln!("error: {error}");
            return exit::USAGE;
        }
    };
    if let Some(url) = &args.forward_to {
        if url.parse::<ureq::http::Uri>().is_err() {
            eprintln!("error: --forward-to {url} is not a URL");
            return exit::USAGE;
        }
    }
    let server = match Server::http(("127.0.0.1", args.port)) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {error}", args.port);
            return exit::USAGE;
        }
    };
    let address = server.server_addr().to_ip().map_or_else(
        || format!("127.0.0.1:{}", args.port),
        |addr| addr.to_string(),
    );
    match &args.forward_to {
        Some(url) => eprintln!(
            "acd listen: listening on http://{address}/, forwarding verified deliveries to {url}"
        ),
        None => eprintln!(
            "acd listen: listening on http://{address}/ (add --forward-to URL to pass them on)"
        ),
    }
    let forward = args.forward_to.as_ref().map(|url| (agent(), url.clone()));
    for request in server.incoming_requests() {
        handle(request, &verifier, forward.as_ref());
    }
    exit::SUCCESS
}

fn header_pairs(request: &Request) -> Vec<(String, String)> {
    request
        .headers()
        .iter()
        .map(|header| {
            (
                header.field.as_str().as_str().to_owned(),
                header.value.as_str().to_owned(),
            )
        })
        .collect()
}

fn respond(request: Request, status: u16, text: &str) {
    let response = Response::from_string(text).with_status_code(status);
    let response = match Header::from_bytes("content-type", "text/plain; charset=utf-8") {
        Ok(header) => response.with_header(header),
        Err(()) => response,
    };
    let _ = request.respond(response);
}

fn handle(mut request: Request, verifier: &Verifier, forward: Option<&(ureq::Agent, String)>) {
    if *request.method() != Method::Post {
        respond(request, 405, "webhook deliveries are POSTs\n");
        return;
    }
    let headers = header_pairs(&request);
    let mut body = Vec::new();
    let limit = u64::try_from(MAX_PAYLOAD_BYTES)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    if request
        .as_reader()
        .take(limit)
        .read_to_end(&mut body)
        .is_err()
    {
        respond(request, 400, "the body could not be read\n");
        return;
    }
    match verifier.verify(&headers, &body, wall_clock()) {
        Ok(event) => {
            let line = event_line(&event);
            match forward {
                None => {
                    println!("{line} verified");
                    respond(request, 204, "");
                }
                Some((agent, url)) => {
                    let status = forward_to(agent, url, &headers, body);
                    match status {
                        Some(status) => println!("{line} verified, forwarded: {status}"),
                        None => println!("{line} verified, forwarding to {url} failed"),
                    }
                    respond(request, status.unwrap_or(502), "");
                }
            }
        }
        Err(error) => {
            let id = headers
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(HEADER_ID))
                .map(|(_, value)| value.chars().take(64).collect::<String>())
                .filter(|id| !id.is_empty() && !id.contains(char::is_whitespace))
                .unwrap_or_else(|| "-".to_owned());
            println!("{id} - - rejected {}: {error}", error.code());
            respond(request, 400, &format!("{}: {error}\n", error.code()));
        }
    }
}

fn event_line(event: &WebhookEvent) -> String {
    let run = event
        .data
        .get("run")
        .and_then(|run| run.get("id"))
        .and_then(|id| id.as_str())
        .filter(|id| !id.is_empty())
        .unwrap_or("-");
    format!("{} {} {run}", event.id, event.event_type)
}

/// POSTs `body` with the `webhook-*` headers and `content-type` as received;
/// the answer's status, or `None` when none came.
fn forward_to(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Option<u16> {
    let mut request = ureq::http::Request::builder().method("POST").uri(url);
    for (name, value) in headers {
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("webhook-") || lower == "content-type" {
            request = request.header(name.as_str(), value.as_str());
        }
    }
    let request = request.body(body).ok()?;
    agent
        .run(request)
        .ok()
        .map(|response| response.status().as_u16())
}
