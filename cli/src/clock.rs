//! The command's clock, injected into the drive loop: the real one, or a
//! virtual one for tests (`ACD_VIRTUAL_CLOCK`).
//!
//! The loop asks the clock for the time and waits through it for the next
//! outcome or the next wake-up, whichever is first. The real clock sleeps
//! in short slices (so Ctrl-C and the countdown bar stay live). The virtual
//! clock starts at the instant `ACD_VIRTUAL_CLOCK` names (Unix ms, or `now`)
//! and moves with real time while requests are in flight, but a wait with
//! nothing in flight takes no real time: the clock jumps to its end. So a
//! command's rate-limit waits, backoff and poll intervals pass at once,
//! while the exchanges themselves (and their timeouts) stay real.

use crate::interrupt::{Interrupt, Interrupted};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Unix milliseconds, the core's instant.
pub type Millis = u64;

/// The variable that makes the command's clock virtual.
pub const VIRTUAL_CLOCK: &str = "ACD_VIRTUAL_CLOCK";

/// The longest uninterrupted real sleep.
const SLICE: Duration = Duration::from_millis(100);

/// The local clock as the core's instant.
pub fn system_now() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// What ended a wait.
pub enum Woken<T> {
    /// An outcome arrived.
    Arrived(T),
    /// The wake-up instant came.
    Due,
}

/// The command's clock.
pub struct Clock {
    /// `Some((start, since))` for a virtual clock: its instant at `since`,
    /// plus the jumps made so far (kept in `start`).
    virtual_start: Option<(Millis, Instant)>,
}

impl Clock {
    /// The real clock, or the virtual one `ACD_VIRTUAL_CLOCK` asks for
    /// (`now`, or a start instant in Unix ms). A value that is neither is
    /// refused, naming the variable.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(VIRTUAL_CLOCK) {
            Err(_) => Ok(Self::real()),
            Ok(value) if value.is_empty() => Ok(Self::real()),
            Ok(value) if value == "now" => Ok(Self::virtual_from(system_now())),
            Ok(value) => value.parse::<u64>().map(Self::virtual_from).map_err(|_| {
                format!("{VIRTUAL_CLOCK}={value:?}: give a start instant in Unix ms, or now")
            }),
        }
    }

    /// The real clock.
    pub fn real() -> Self {
        Self {
            virtual_start: None,
        }
    }

    /// A virtual clock starting at `start`.
    pub fn virtual_from(start: Millis) -> Self {
        Self {
            virtual_start: Some((start, Instant::now())),
        }
    }

    /// The current instant.
    pub fn now(&self) -> Millis {
        match self.virtual_start {
            None => system_now(),
            Some((start, since)) => {
                let elapsed = u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX);
                start.saturating_add(elapsed)
            }
        }
    }

    /// Waits for the next of `arrivals` or until `until` (`None`: for an
    /// outcome only), whichever is first; `in_flight` says whether an
    /// outcome can come. `tick` is called as real time passes (the
    /// countdown bar).
    pub fn wait<T>(
        &mut self,
        arrivals: &Receiver<T>,
        until: Option<Millis>,
        in_flight: bool,
        interrupt: &Interrupt,
        tick: &mut dyn FnMut(Millis),
    ) -> Result<Woken<T>, Interrupted> {
        if let (Some((start, since)), Some(until), false) = (self.virtual_start, until, in_flight) {
            // Nothing can arrive: the wait passes at once.
            let now = self.now();
            let jump = until.saturating_sub(now);
            self.virtual_start = Some((start.saturating_add(jump), since));
            interrupt.check()?;
            return Ok(Woken::Due);
        }
        loop {
            interrupt.check()?;
            let now = self.now();
            let slice = match until {
                Some(until) if now >= until => return Ok(Woken::Due),
                Some(until) => Duration::from_millis(until - now).min(SLICE),
                None => SLICE,
            };
            tick(now);
            match arrivals.recv_timeout(slice) {
                Ok(arrival) => return Ok(Woken::Arrived(arrival)),
                Err(RecvTimeoutError::Timeout) => {}
                // No sender is left: nothing can arrive any more.
                Err(RecvTimeoutError::Disconnected) if until.is_none() => return Ok(Woken::Due),
                Err(RecvTimeoutError::Disconnected) => interrupt.sleep(slice)?,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_wait_with_nothing_in_flight_jumps_to_its_end() {
        let mut clock = Clock::virtual_from(1_700_000_000_000);
        let (_sender, arrivals) = std::sync::mpsc::channel::<()>();
        let interrupt = Interrupt::none();
        let started = Instant::now();
        let woken = clock
            .wait(
                &arrivals,
                Some(1_700_000_060_000),
                false,
                &interrupt,
                &mut |_| {},
            )
            .unwrap();
        assert!(matches!(woken, Woken::Due));
        assert!(clock.now() >= 1_700_000_060_000);
        assert!(clock.now() < 1_700_000_061_000);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
