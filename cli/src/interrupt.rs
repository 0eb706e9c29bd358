//! Ctrl-C (SIGINT): the command stops within a second, also in the middle
//! of a wait (waits sleep on a channel the handler signals) or of a request
//! in flight (the handler exits by itself if the main thread has not).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// The exit status of an interrupted command.
pub const INTERRUPTED: u8 = 130;
/// How long the main thread has to stop by itself after Ctrl-C.
const GRACE: Duration = Duration::from_millis(600);

/// The command was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

/// Whether Ctrl-C was pressed, and a way to sleep until it is.
pub struct Interrupt {
    flag: Arc<AtomicBool>,
    signal: Receiver<()>,
}

impl Interrupt {
    /// Installs the handler.
    pub fn install() -> Self {
        let flag = Arc::new(AtomicBool::new(false));
        let (sender, signal) = mpsc::channel();
        let seen = flag.clone();
        // If a handler cannot be installed, Ctrl-C keeps its default effect
        // (the process ends at once), which is still an interruption.
        let _ = ctrlc::set_handler(move || {
            seen.store(true, Ordering::SeqCst);
            let _ = sender.send(());
            std::thread::sleep(GRACE);
            eprintln!("interrupted");
            std::process::exit(i32::from(INTERRUPTED));
        });
        Self { flag, signal }
    }

    /// No handler (unit tests): never interrupted; sleeps are plain.
    #[cfg(test)]
    pub fn none() -> Self {
        let (_sender, signal) = mpsc::channel();
        Self {
            flag: Arc::new(AtomicBool::new(false)),
            signal,
        }
    }

    /// Fails once Ctrl-C was pressed.
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.flag.load(Ordering::SeqCst) {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }

    /// Sleeps up to `duration`, returning early on Ctrl-C.
    pub fn sleep(&self, duration: Duration) -> Result<(), Interrupted> {
        match self.signal.recv_timeout(duration) {
            Ok(()) => Err(Interrupted),
            Err(RecvTimeoutError::Timeout) => self.check(),
            // The handler could not be installed: plain sleep.
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(duration);
                self.check()
            }
        }
    }
}
