//! `acd`'s transport against a scripted raw TCP server (issue 43, items 2
//! and 5): a small gzip body that would inflate past the core's body bound
//! is bounded as the bytes that came (the transport asks for no encoding and
//! decodes none: the body is no JSON, a protocol error); a `100 Continue` or
//! `103 Early Hints` before the 200 is skipped; a response nobody asked for,
//! left on a kept-alive connection, is never the answer to the next page.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use support::{acd, ADA};

/// The bytes to write for the `n`th request (counted over all connections).
type Script = Arc<dyn Fn(usize) -> Vec<u8> + Send + Sync>;

/// A loopback server keeping each connection open for as many requests as
/// come, answering each with the script's bytes; records the header blocks.
struct Raw {
    url: String,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Raw {
    fn start(script: impl Fn(usize) -> Vec<u8> + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let log = requests.clone();
        let script: Script = Arc::new(script);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, script) = (log.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &log, &script));
            }
        });
        Self { url, requests }
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, log: &Mutex<Vec<String>>, script: &Script) {
    let mut pending = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        while let Some(end) = pending.windows(4).position(|window| window == b"\r\n\r\n") {
            let request = String::from_utf8_lossy(&pending[..end]).into_owned();
            pending.drain(..end + 4);
            let index = {
                let mut log = log.lock().unwrap();
                log.push(request);
                log.len() - 1
            };
            if stream.write_all(&script(index)).is_err() {
                return;
            }
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => pending.extend_from_slice(&buffer[..read]),
        }
    }
}

/// A 200 of `body` with `extra` header lines (kept alive).
fn ok(body: &str, extra: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A page of the records with these ids.
fn page(ids: &[u32]) -> String {
    let records: Vec<String> = ids.iter().map(|id| format!("{{\"id\":{id}}}")).collect();
    format!("{{\"data\":[{}]}}", records.join(","))
}

/// The CRC-32 (IEEE) of `length` zero bytes.
fn crc32_of_zeros(length: usize) -> u32 {
    let mut table = [0u32; 256];
    for (index, entry) in table.iter_mut().enumerate() {
        let mut value = index as u32;
        for _ in 0..8 {
            value = if value & 1 == 1 {
                0xEDB8_8320 ^ (value >> 1)
            } else {
                value >> 1
            };
        }
        *entry = value;
    }
    let mut crc = !0u32;
    for _ in 0..length {
        crc = table[(crc & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// A gzip stream of `1 + 258 * matches` zero bytes: one fixed-Huffman
/// deflate block of a literal zero and `matches` copies of 258 bytes at
/// distance 1 (13 bits each, so about 160 times smaller than what it
/// inflates to).
fn gzip_of_zeros(matches: usize) -> (Vec<u8>, usize) {
    let mut bits = BitWriter::default();
    bits.push(1, 1); // the last block
    bits.push(1, 2); // fixed Huffman codes
    bits.push_code(0b0011_0000, 8); // literal 0
    for _ in 0..matches {
        bits.push_code(0b1100_0101, 8); // length 258 (symbol 285)
        bits.push_code(0, 5); // distance 1
    }
    bits.push_code(0, 7); // end of block (symbol 256)
    let size = 1 + 258 * matches;
    let mut gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    gzip.extend(bits.finish());
    gzip.extend(crc32_of_zeros(size).to_le_bytes());
    gzip.extend((size as u32).to_le_bytes());
    (gzip, size)
}

/// Deflate's bit order: values least significant bit first, Huffman codes
/// most significant bit first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    used: u32,
}

impl BitWriter {
    fn bit(&mut self, bit: u32) {
        if self.used % 8 == 0 {
            self.bytes.push(0);
        }
        let last = self.bytes.len() - 1;
        self.bytes[last] |= ((bit & 1) as u8) << (self.used % 8);
        self.used += 1;
    }

    fn push(&mut self, value: u32, count: u32) {
        (0..count).for_each(|index| self.bit(value >> index));
    }

    fn push_code(&mut self, code: u32, count: u32) {
        (0..count).rev().for_each(|index| self.bit(code >> index));
    }

    fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// The core's default body bound, as its error sentence names it.
const DEFAULT_BOUND: usize = 32 * 1024 * 1024;

#[test]
fn a_gzip_body_inflating_past_the_bound_is_bounded_as_bytes_and_is_no_json() {
    // About 270 KB that would inflate to 42 MiB, past the 32 MiB default.
    let (gzip, inflated) = gzip_of_zeros(170_000);
    assert!(gzip.len() < 300 * 1024, "{}", gzip.len());
    assert!(inflated > DEFAULT_BOUND);
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n\
         Content-Length: {}\r\n\r\n",
        gzip.len()
    );
    let answer = [head.as_bytes(), &gzip].concat();
    let server = Raw::start(move |_| answer.clone());
    let run = acd(&[
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
        "--max-attempts",
        "1",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let request = &server.requests()[0];
    assert!(
        !request.to_ascii_lowercase().contains("accept-encoding"),
        "the CLI asks for no encoding: {request}"
    );
    let last = run.stderr.lines().last().unwrap();
    // The 270 KB that came are within the bound, and are no JSON.
    assert!(!last.contains("larger than"), "{last}");
    assert!(last.starts_with("error: "), "{last}");
    assert_eq!(run.stdout, "");
}

#[test]
fn informational_responses_before_the_200_are_skipped() {
    // (A 100 carries no header lines: ureq refuses one that does.)
    for (informational, lines) in [
        ("100 Continue", ""),
        ("103 Early Hints", "Link: </style.css>; rel=preload\r\n"),
    ] {
        let answer = [
            format!("HTTP/1.1 {informational}\r\n{lines}\r\n").into_bytes(),
            ok(&page(&[1]), ""),
        ]
        .concat();
        let server = Raw::start(move |_| answer.clone());
        let run = acd(&[
            "tables",
            "read",
            "t",
            "--base-url",
            &server.url,
            "--api-key",
            ADA,
            "--max-attempts",
            "1",
        ]);
        assert_eq!(run.code, Some(0), "{informational}: {}", run.stderr);
        assert_eq!(run.stdout, "{\"id\":1}\n", "{informational}");
        assert_eq!(server.requests().len(), 1, "{informational}");
    }
}

#[test]
fn a_response_nobody_asked_for_is_never_the_next_pages_answer() {
    // Page 1 comes with an extra 200 behind it on the same connection.
    let server = Raw::start(|index| match index {
        0 => [ok(&page(&[1]), ""), ok(&page(&[666]), "")].concat(),
        1 => ok(&page(&[2]), ""),
        _ => ok(&page(&[]), ""),
    });
    let run = acd(&[
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
        "--all",
        "--page-size",
        "1",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":1}\n{\"id\":2}\n", "{}", run.stderr);
    assert!(!run.stdout.contains("666"));
}
