//! Records on stdout: JSON Lines (one object per line, in the server's
//! order), one JSON array, or CSV (a header row of the first record's keys,
//! then keys first seen later appended, and one row per record).
//!
//! JSON Lines and JSON stream page by page; CSV needs every key before its
//! header row, so it is written when paging ends.
//!
//! One JSON document (a run, the index, `acd api`'s body) is indented on a
//! terminal and one compact line when piped ([`Layout`]), as `gh` does.

use crate::args::Format;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::io::{self, Write};

/// Where records go.
pub struct RecordSink<W: Write> {
    out: W,
    format: Format,
    written: u64,
    rows: Vec<Vec<(String, Box<RawValue>)>>,
    columns: Vec<String>,
}

impl<W: Write> RecordSink<W> {
    /// Records to `out` in `format`.
    pub fn new(out: W, format: Format) -> Self {
        Self {
            out,
            format,
            written: 0,
            rows: Vec::new(),
            columns: Vec::new(),
        }
    }

    /// Records written or held so far.
    pub fn count(&self) -> u64 {
        self.written
    }

    /// One page of records.
    pub fn page(&mut self, records: &[Box<RawValue>]) -> io::Result<()> {
        for record in records {
            self.record(record)?;
        }
        self.out.flush()
    }

    fn record(&mut self, record: &RawValue) -> io::Result<()> {
        match self.format {
            Format::Jsonl => {
                write_compact(&mut self.out, record)?;
                self.out.write_all(b"\n")?;
            }
            Format::Json => {
                self.out
                    .write_all(if self.written == 0 { b"[" } else { b"," })?;
                write_compact(&mut self.out, record)?;
            }
            Format::Csv => {
                let members = object_members(record).map_err(io::Error::other)?;
                for (key, _) in &members {
                    if !self.columns.contains(key) {
                        self.columns.push(key.clone());
                    }
                }
                self.rows.push(members);
            }
        }
        self.written += 1;
        Ok(())
    }

    /// Ends the output (closes the JSON array, writes the CSV).
    pub fn finish(mut self) -> io::Result<()> {
        match self.format {
            Format::Jsonl => {}
            Format::Json => {
                let tail: &[u8] = if self.written == 0 { b"[]\n" } else { b"]\n" };
                self.out.write_all(tail)?;
            }
            Format::Csv => {
                if !self.columns.is_empty() {
                    let mut writer = csv::Writer::from_writer(&mut self.out);
                    writer.write_record(&self.columns)?;
                    for row in &self.rows {
                        let cells = self.columns.iter().map(|column| {
                            row.iter()
                                .find(|(key, _)| key == column)
                                .map_or(String::new(), |(_, value)| cell(value))
                        });
                        writer.write_record(cells)?;
                    }
                    writer.flush()?;
                }
            }
        }
        self.out.flush()
    }
}

/// How one JSON document is laid out on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Indented by two spaces, one member per line (stdout is a terminal).
    Pretty,
    /// One line (stdout is a pipe or a file).
    Compact,
}

impl Layout {
    /// Pretty on a terminal, compact otherwise.
    pub fn of_stdout() -> Self {
        use std::io::IsTerminal;
        if io::stdout().is_terminal() {
            Layout::Pretty
        } else {
            Layout::Compact
        }
    }
}

/// Writes one JSON document in `layout` (members in the order received),
/// then a newline.
pub fn write_document(out: &mut impl Write, value: &RawValue, layout: Layout) -> io::Result<()> {
    match layout {
        Layout::Compact => write_compact(out, value)?,
        Layout::Pretty => {
            let mut deserializer = serde_json::Deserializer::from_str(value.get());
            let mut serializer = serde_json::Serializer::pretty(&mut *out);
            serde_transcode::transcode(&mut deserializer, &mut serializer)
                .map_err(io::Error::other)?;
        }
    }
    out.write_all(b"\n")
}

/// Writes `value` on one line: as received when it already is one line,
/// else re-serialised compactly with its members in the same order.
pub fn write_compact(out: &mut impl Write, value: &RawValue) -> io::Result<()> {
    let text = value.get();
    if !text.contains(['\n', '\r']) {
        return out.write_all(text.as_bytes());
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let mut serializer = serde_json::Serializer::new(&mut *out);
    serde_transcode::transcode(&mut deserializer, &mut serializer).map_err(io::Error::other)
}

/// `acd api -i`: the status line and the response headers, then an empty
/// line. Headers that carry a secret (the core's `carries_secret`) never
/// show their value.
pub fn head(response: &acd_core::client::HttpResponse) -> String {
    let mut text = format!("HTTP/1.1 {}\r\n", response.status);
    for (name, value) in &response.headers {
        let value = if acd_core::model::carries_secret(name) {
            "[redacted]"
        } else {
            value.as_str()
        };
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text
}

/// A CSV cell: strings as their text, null as empty, anything else as
/// compact JSON.
fn cell(value: &RawValue) -> String {
    match serde_json::from_str::<Option<String>>(value.get()) {
        Ok(Some(text)) => text,
        Ok(None) => String::new(),
        Err(_) => {
            let mut out = Vec::new();
            match write_compact(&mut out, value) {
                Ok(()) => String::from_utf8_lossy(&out).into_owned(),
                Err(_) => value.get().to_owned(),
            }
        }
    }
}

/// A record's members in the order they are written.
fn object_members(record: &RawValue) -> Result<Vec<(String, Box<RawValue>)>, serde_json::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                members.push(entry);
            }
            Ok(members)
        }
    }
    serde_json::Deserializer::from_str(record.get()).deserialize_map(Members)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    fn render(format: Format, pages: &[&[&str]]) -> String {
        let mut out = Vec::new();
        let mut sink = RecordSink::new(&mut out, format);
        for page in pages {
            let records: Vec<_> = page.iter().map(|text| raw(text)).collect();
            sink.page(&records).unwrap();
        }
        sink.finish().unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_document_is_indented_when_pretty_and_one_line_when_compact() {
        let value = raw("{\"id\":\"run_1\",\n \"input\":{\"a\":[1,2]}}");
        let mut pretty = Vec::new();
        write_document(&mut pretty, &value, Layout::Pretty).unwrap();
        assert_eq!(
            String::from_utf8(pretty).unwrap(),
            "{\n  \"id\": \"run_1\",\n  \"input\": {\n    \"a\": [\n      1,\n      2\n    ]\n  }\n}\n"
        );
        let mut compact = Vec::new();
        write_document(&mut compact, &value, Layout::Compact).unwrap();
        assert_eq!(
            String::from_utf8(compact).unwrap(),
            "{\"id\":\"run_1\",\"input\":{\"a\":[1,2]}}\n"
        );
    }

    #[test]
    fn jsonl_keeps_bytes_and_order_and_puts_one_record_per_line() {
        let text = render(
            Format::Jsonl,
            &[&[r#"{"z":1,"a":"x"}"#], &["{\n \"b\": [1,\n2]\n}"]],
        );
        assert_eq!(text, "{\"z\":1,\"a\":\"x\"}\n{\"b\":[1,2]}\n");
    }

    #[test]
    fn json_is_one_array_even_when_empty() {
        assert_eq!(render(Format::Json, &[&[]]), "[]\n");
        assert_eq!(
            render(Format::Json, &[&[r#"{"a":1}"#], &[r#"{"a":2}"#]]),
            "[{\"a\":1},{\"a\":2}]\n"
        );
    }

    #[test]
    fn csv_header_is_first_keys_then_later_keys_appended() {
        let text = render(
            Format::Csv,
            &[
                &[r#"{"id":1,"name":"a, b","n":null}"#],
                &[r#"{"extra":{"k":[1]},"id":2,"flag":true}"#],
            ],
        );
        assert_eq!(
            text,
            "id,name,n,extra,flag\n1,\"a, b\",,,\n2,,,\"{\"\"k\"\":[1]}\",true\n"
        );
    }
}
