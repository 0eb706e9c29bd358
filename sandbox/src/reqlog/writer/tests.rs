#![allow(clippy::unwrap_used)]

use super::*;
use std::sync::{Arc, Condvar};

/// A sink whose writes wait until it is opened, as a pipe nobody reads.
#[derive(Clone, Default)]
struct Gated {
    open: Arc<(Mutex<bool>, Condvar)>,
    entered: Arc<AtomicU64>,
    out: Arc<Mutex<Vec<u8>>>,
}

impl Gated {
    fn open(&self) {
        *self.open.0.lock().unwrap() = true;
        self.open.1.notify_all();
    }

    fn text(&self) -> String {
        String::from_utf8(self.out.lock().unwrap().clone()).unwrap()
    }

    fn wait_for(&self, what: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !what(self) {
            assert!(
                Instant::now() < deadline,
                "never happened: {:?}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Write for Gated {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.entered.fetch_add(1, Ordering::SeqCst);
        let mut open = self.open.0.lock().unwrap();
        while !*open {
            open = self.open.1.wait(open).unwrap();
        }
        self.out.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_stalled_sink_drops_lines_and_reports_them_later_and_at_the_end() {
    let sink = Gated::default();
    let writer = LogWriter::to(Box::new(sink.clone()), 2);
    writer.write("line 0\n".into());
    // The thread holds line 0 in a write that waits; two more fit the queue.
    sink.wait_for(|sink| sink.entered.load(Ordering::SeqCst) == 1);
    for n in 1..=9 {
        writer.write(format!("line {n}\n"));
    }
    assert_eq!(writer.dropped(), 7);
    sink.open();
    sink.wait_for(|sink| sink.text().ends_with("line 2\n"));
    writer.write("line 10\n".into());
    assert!(writer.finish(Duration::from_secs(30)));
    assert_eq!(
        sink.text(),
        "line 0\nline 1\nline 2\n\
         acd-sandbox: 7 log lines dropped: stderr is not read fast enough\n\
         line 10\n\
         acd-sandbox: 7 log lines were dropped in all: stderr was not read fast enough\n"
    );
}

#[test]
fn nothing_dropped_means_no_report() {
    let sink = Gated::default();
    sink.open();
    let writer = LogWriter::to(Box::new(sink.clone()), 4);
    writer.write("a\n".into());
    writer.write("b\n".into());
    assert!(writer.finish(Duration::from_secs(30)));
    assert_eq!(sink.text(), "a\nb\n");
    assert_eq!(writer.dropped(), 0);
}

#[test]
fn finish_gives_up_on_a_sink_that_never_drains() {
    let sink = Gated::default();
    let writer = LogWriter::to(Box::new(sink.clone()), 1);
    writer.write("held\n".into());
    sink.wait_for(|sink| sink.entered.load(Ordering::SeqCst) == 1);
    writer.write("queued\n".into());
    writer.write("dropped\n".into());
    assert_eq!(writer.dropped(), 1);
    assert!(!writer.finish(Duration::from_millis(50)));
    sink.open();
}
