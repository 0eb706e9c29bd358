//! Rust half of `scripts/bench-sdk`, the reference: acd-core's client driven
//! over blocking ureq (the `acd` command line's transport, one agent) beside
//! a plain ureq loop sending the same requests with the same JSON parsing
//! (each record a `serde_json::Value`), against the sandbox at BASE_URL
//! (table `big`, ROWS rows, limits raised). Workload A: every row in pages
//! of 100 (a table pager; the loop stops on a short page). Workload B: 500
//! single-row reads (`table_read`, page size 1, offset i). After WARMUP
//! rounds, ROUNDS rounds alternate plain, acd, plain, acd, ...; prints one
//! JSON line per workload: `{"language", "workload", "plain_ms", "acd_ms",
//! "waits"}`. A measurement, not a test.
//!
//! `cargo run --release -p acd-cli --example bench_sdk -- BASE_URL ROWS [ROUNDS] [WARMUP]`

use acd_core::client::{
    Client, ClientRequest, Entropy, Event, HttpResponse, Outcome, TransportFailure,
};
use serde_json::Value;
use std::io::Read;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

const KEY: &str = "acd_live_demo_ada";
const TABLE: &str = "big";
const PAGE: usize = 100;
const SINGLE: usize = 500;

type Result<T> = std::result::Result<T, String>;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// Sends what the core built; the answer as the core's outcome.
fn send(agent: &ureq::Agent, request: &ClientRequest) -> Outcome {
    let mut builder = ureq::http::Request::builder()
        .method(request.method.as_str())
        .uri(request.url.as_str());
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let Ok(http_request) = builder.body(request.body.clone().unwrap_or_default()) else {
        return Outcome::Transport(TransportFailure::Connect);
    };
    let Ok(mut response) = agent.run(http_request) else {
        return Outcome::Transport(TransportFailure::Connect);
    };
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_owned(), value)
        })
        .collect();
    let mut body = Vec::new();
    if response
        .body_mut()
        .as_reader()
        .read_to_end(&mut body)
        .is_err()
    {
        return Outcome::Transport(TransportFailure::Interrupted);
    }
    Outcome::Response(HttpResponse {
        status: response.status().as_u16(),
        headers,
        body,
    })
}

/// The acd side: one client, each call driven to its end; records parsed
/// into values as the plain loop does. Returns the rows read.
struct Acd {
    client: Client,
    agent: ureq::Agent,
    waits: usize,
}

impl Acd {
    fn run(&mut self, spec: &str) -> Result<usize> {
        let id = self
            .client
            .start_json(spec.as_bytes())
            .map_err(|e| e.to_string())?;
        let mut rows = 0;
        loop {
            while let Some((call, event)) = self.client.poll_event() {
                if call != id {
                    continue;
                }
                match event {
                    Event::Page { records, .. } => rows += count(&records)?,
                    Event::Response {
                        response: acd_core::client::ApiResponse::Records { records, .. },
                        ..
                    } => rows += count(&records)?,
                    Event::Waiting { .. } => self.waits += 1,
                    Event::Done => return Ok(rows),
                    Event::Failed(error) => return Err(error.to_string()),
                    _ => {}
                }
            }
            let now = now_ms();
            if let Some(transmit) = self.client.poll_transmit(now) {
                let outcome = send(&self.agent, &transmit.request);
                self.client
                    .handle(transmit.id, outcome, now_ms())
                    .map_err(|e| e.to_string())?;
            } else if let Some(wake) = self.client.poll_timeout() {
                let wait = wake.as_millis().saturating_sub(now_ms());
                std::thread::sleep(std::time::Duration::from_millis(wait));
            } else {
                return Err("no progress".into());
            }
        }
    }
}

fn count(records: &[Box<serde_json::value::RawValue>]) -> Result<usize> {
    let mut rows = 0;
    for record in records {
        let value: Value = serde_json::from_str(record.get()).map_err(|e| e.to_string())?;
        rows += usize::from(value.is_object());
    }
    Ok(rows)
}

/// One GET of `limit` rows from `offset`, parsed: the rows.
fn page(agent: &ureq::Agent, url: &str, limit: usize, offset: usize) -> Result<usize> {
    let mut response = agent
        .get(format!(
            "{url}/api/v1/tables/{TABLE}?limit={limit}&offset={offset}"
        ))
        .header("X-API-Key", KEY)
        .header("Accept", "application/json")
        .call()
        .map_err(|e| e.to_string())?;
    if response.status() != 200 {
        return Err(format!("status {}", response.status()));
    }
    let body = response
        .body_mut()
        .read_to_vec()
        .map_err(|e| e.to_string())?;
    let value: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let data = value
        .get("data")
        .and_then(Value::as_array)
        .ok_or("no data")?;
    Ok(data.iter().filter(|r| r.is_object()).count())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let url = args
        .get(1)
        .ok_or("usage: BASE_URL ROWS [ROUNDS] [WARMUP]")?;
    let arg = |i: usize, default: usize| -> Result<usize> {
        args.get(i)
            .map_or(Ok(default), |a| a.parse().map_err(|_| format!("bad {a}")))
    };
    let (rows, rounds, warmup) = (arg(2, 5000)?, arg(3, 5)?, arg(4, 2)?);
    let plain_agent = agent();
    let config = serde_json::json!({"api_key": KEY, "base_url": url});
    let client = Client::from_config_json(config.to_string().as_bytes(), Entropy::from_seed(1))
        .map_err(|e| e.to_string())?;
    let mut acd = Acd {
        client,
        agent: agent(),
        waits: 0,
    };
    acd.run(r#"{"type":"index"}"#)?; // learns the advertised (raised) limit
    let pages_spec = format!(r#"{{"type":"table_pages","table":"{TABLE}","page_size":{PAGE}}}"#);
    for workload in ["A", "B"] {
        let expected = if workload == "A" { rows } else { SINGLE };
        let (mut plain_ms, mut acd_ms) = (Vec::new(), Vec::new());
        acd.waits = 0;
        for round in 0..warmup + rounds {
            let started = Instant::now();
            let got = if workload == "A" {
                let (mut got, mut offset) = (0, 0);
                loop {
                    let n = page(&plain_agent, url, PAGE, offset)?;
                    got += n;
                    if n < PAGE {
                        break got;
                    }
                    offset += PAGE;
                }
            } else {
                (0..SINGLE)
                    .map(|offset| page(&plain_agent, url, 1, offset))
                    .sum::<Result<usize>>()?
            };
            let plain = started.elapsed().as_secs_f64() * 1000.0;
            let started = Instant::now();
            let got_acd = if workload == "A" {
                acd.run(&pages_spec)?
            } else {
                (0..SINGLE)
                    .map(|offset| {
                        acd.run(&format!(
                            r#"{{"type":"table_read","table":"{TABLE}","page_size":1,"offset":{offset}}}"#
                        ))
                    })
                    .sum::<Result<usize>>()?
            };
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            if got != expected || got_acd != expected {
                return Err(format!(
                    "rust {workload}: read {got} (plain) and {got_acd} (acd) rows, expected {expected}"
                ));
            }
            if round >= warmup {
                plain_ms.push(plain);
                acd_ms.push(elapsed);
            }
        }
        let line = serde_json::json!({"language": "rust", "workload": workload,
            "plain_ms": plain_ms, "acd_ms": acd_ms, "waits": acd.waits});
        println!("{line}");
    }
    Ok(())
}
