//! The sender's delivery planner: a pure state machine (like the client
//! driver) that any server embeds. Feed it events ([`DeliveryPlanner::enqueue`]),
//! send what [`DeliveryPlanner::poll_transmit`] returns, report each
//! outcome with [`DeliveryPlanner::handle`], wake at
//! [`DeliveryPlanner::poll_timeout`], and read attempt records from
//! [`DeliveryPlanner::poll_event`]. Time is always an argument.
//!
//! Rules (documented in `docs/webhooks.md`):
//! * each event goes to every endpoint whose filter wants its type, as one
//!   delivery per endpoint, all with the event's id as `webhook-id`;
//! * attempt `k` is due `schedule_ms[k]` after attempt `k-1` was due (the
//!   first `schedule_ms[0]` after the enqueue); when the previous outcome
//!   came later than that, it is due at once;
//! * success is a 2xx response within `attempt_timeout_ms`; anything else
//!   (another status, an error, no answer by the deadline) schedules the
//!   next attempt, and after the last one the delivery gives up;
//! * [`DeliveryPlanner::redeliver`] makes one more attempt now: of a
//!   finished delivery a single attempt (no further retries), of a waiting
//!   one its next attempt moved to now;
//! * bounds: per endpoint at most `max_pending_per_endpoint` unfinished
//!   deliveries (one more drops the oldest waiting one, reported as
//!   `dropped`) and `max_in_flight_per_endpoint` attempts in flight; at most
//!   `max_finished` finished deliveries are kept, so a dead endpoint costs
//!   bounded memory. Records wait in a queue of at most
//!   [`MAX_RECORDS`] (the oldest is dropped when the caller does not poll).

mod types;

pub use types::*;

use crate::webhooks::signed_headers;
use crate::UnixMillis;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// Records kept until polled; the oldest is dropped past this.
pub const MAX_RECORDS: usize = 10_000;

#[derive(Debug)]
struct InFlight {
    attempt: AttemptId,
    started: UnixMillis,
    deadline: UnixMillis,
}

#[derive(Debug)]
struct Delivery {
    event: Arc<OutgoingEvent>,
    endpoint: EndpointId,
    /// Attempts made (the schedule index of the next one).
    attempts: u32,
    /// When the last scheduled attempt was due (the base of the next delay).
    last_due: UnixMillis,
    /// When the next attempt is due, while pending.
    due: Option<UnixMillis>,
    in_flight: Option<InFlight>,
    /// The current attempt is a redelivery of a finished delivery: no retry.
    single: bool,
    state: DeliveryState,
}

/// The planner. See the module documentation for its rules.
#[derive(Debug)]
pub struct DeliveryPlanner {
    config: PlannerConfig,
    endpoints: Vec<Endpoint>,
    deliveries: BTreeMap<DeliveryId, Delivery>,
    finished: VecDeque<DeliveryId>,
    records: VecDeque<DeliveryRecord>,
    next_delivery: DeliveryId,
    next_attempt: AttemptId,
}

impl DeliveryPlanner {
    /// A planner without endpoints; `Config` when a bound is out of range.
    pub fn new(config: PlannerConfig) -> Result<Self, PlannerError> {
        if config.schedule_ms.is_empty() || config.schedule_ms.len() > MAX_SCHEDULE_ATTEMPTS {
            return Err(PlannerError::Config("the schedule needs 1 to 32 attempts"));
        }
        if config.attempt_timeout_ms == 0 {
            return Err(PlannerError::Config(
                "the attempt timeout must be at least 1 ms",
            ));
        }
        if config.max_pending_per_endpoint == 0 || config.max_in_flight_per_endpoint == 0 {
            return Err(PlannerError::Config(
                "the per-endpoint bounds must be at least 1",
            ));
        }
        Ok(Self {
            config,
            endpoints: Vec::new(),
            deliveries: BTreeMap::new(),
            finished: VecDeque::new(),
            records: VecDeque::new(),
            next_delivery: 1,
            next_attempt: 1,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &PlannerConfig {
        &self.config
    }

    /// Adds an endpoint; returns its id.
    pub fn add_endpoint(&mut self, endpoint: Endpoint) -> Result<EndpointId, PlannerError> {
        if self.endpoints.len() >= MAX_ENDPOINTS {
            return Err(PlannerError::TooManyEndpoints);
        }
        if endpoint.secrets.is_empty() {
            return Err(PlannerError::NoSecret(endpoint.url));
        }
        self.endpoints.push(endpoint);
        Ok(self.endpoints.len().saturating_sub(1))
    }

    /// The endpoints, by id.
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// Plans `event` for every endpoint that wants its type, first attempt
    /// due `schedule_ms[0]` after `now`; returns the new deliveries.
    pub fn enqueue(&mut self, event: OutgoingEvent, now: UnixMillis) -> Vec<DeliveryId> {
        let event = Arc::new(event);
        let first = self.delay(0);
        let targets: Vec<EndpointId> = (0..self.endpoints.len())
            .filter(|&n| {
                self.endpoints
                    .get(n)
                    .is_some_and(|endpoint| endpoint.wants(&event.event_type))
            })
            .collect();
        let mut created = Vec::new();
        for endpoint in targets {
            if !self.make_room(endpoint, now) {
                continue;
            }
            let id = self.next_delivery;
            self.next_delivery = self.next_delivery.saturating_add(1);
            let due = now.saturating_add(first);
            self.deliveries.insert(
                id,
                Delivery {
                    event: Arc::clone(&event),
                    endpoint,
                    attempts: 0,
                    last_due: due,
                    due: Some(due),
                    in_flight: None,
                    single: false,
                    state: DeliveryState::Pending,
                },
            );
            created.push(id);
        }
        created
    }

    /// The next attempt due at `now`, if any (expiring timed-out attempts
    /// first). Its headers are signed at `now`.
    pub fn poll_transmit(&mut self, now: UnixMillis) -> Option<DeliveryTransmit> {
        self.handle_timeout(now);
        let (id, _) = self
            .deliveries
            .iter()
            .filter_map(|(id, d)| {
                d.due
                    .filter(|due| *due <= now)
                    .map(|due| (*id, due, d.endpoint))
            })
            .filter(|(_, _, endpoint)| {
                self.in_flight(*endpoint) < self.config.max_in_flight_per_endpoint
            })
            .min_by_key(|(id, due, _)| (*due, *id))
            .map(|(id, due, _)| (id, due))?;
        let attempt = self.next_attempt;
        self.next_attempt = self.next_attempt.saturating_add(1);
        let deadline = now.saturating_add(self.config.attempt_timeout_ms);
        let delivery = self.deliveries.get_mut(&id)?;
        let endpoint = self.endpoints.get(delivery.endpoint)?;
        delivery.due = None;
        delivery.state = DeliveryState::InFlight;
        delivery.attempts = delivery.attempts.saturating_add(1);
        delivery.in_flight = Some(InFlight {
            attempt,
            started: now,
            deadline,
        });
        let event = &delivery.event;
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        headers.extend(signed_headers(
            &endpoint.secrets,
            &event.id,
            now.as_millis() / crate::MILLIS_PER_SECOND,
            &event.body,
        ));
        Some(DeliveryTransmit {
            attempt,
            delivery: id,
            endpoint: delivery.endpoint,
            url: endpoint.url.clone(),
            headers,
            body: Arc::clone(&event.body),
            event_id: event.id.clone(),
            event_type: event.event_type.clone(),
            number: delivery.attempts,
            deadline,
        })
    }

    /// Reports the outcome of `attempt` at `now`. An outcome after the
    /// attempt's deadline counts as timed out; one for an unknown or
    /// already-ended attempt is ignored (returns false).
    pub fn handle(&mut self, attempt: AttemptId, outcome: AttemptOutcome, now: UnixMillis) -> bool {
        let Some(id) = self.deliveries.iter().find_map(|(id, d)| {
            d.in_flight
                .as_ref()
                .filter(|f| f.attempt == attempt)
                .map(|_| *id)
        }) else {
            return false;
        };
        let late = self
            .deliveries
            .get(&id)
            .and_then(|d| d.in_flight.as_ref())
            .is_some_and(|f| now > f.deadline);
        let result = match outcome {
            _ if late => AttemptResult::TimedOut,
            AttemptOutcome::Response(status) if (200..300).contains(&status) => {
                AttemptResult::Succeeded { status }
            }
            AttemptOutcome::Response(status) => AttemptResult::Failed { status },
            AttemptOutcome::Error(reason) => AttemptResult::Error { reason },
        };
        self.finish_attempt(id, result, now);
        true
    }

    /// Ends every attempt in flight past its deadline as timed out.
    pub fn handle_timeout(&mut self, now: UnixMillis) {
        let expired: Vec<DeliveryId> = self
            .deliveries
            .iter()
            .filter(|(_, d)| d.in_flight.as_ref().is_some_and(|f| f.deadline <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            self.finish_attempt(id, AttemptResult::TimedOut, now);
        }
    }

    /// When to call [`Self::poll_transmit`] next: the earliest due attempt
    /// or attempt deadline; `None` when nothing is planned.
    pub fn poll_timeout(&self) -> Option<UnixMillis> {
        self.deliveries
            .values()
            .filter_map(|d| d.due.or(d.in_flight.as_ref().map(|f| f.deadline)))
            .min()
    }

    /// The next attempt record (oldest first).
    pub fn poll_event(&mut self) -> Option<DeliveryRecord> {
        self.records.pop_front()
    }

    /// Asks for one more attempt of `delivery` at `now` (see the module
    /// documentation).
    pub fn redeliver(&mut self, delivery: DeliveryId, now: UnixMillis) -> Result<(), PlannerError> {
        let (state, endpoint) = match self.deliveries.get(&delivery) {
            None => return Err(PlannerError::UnknownDelivery(delivery)),
            Some(d) => (d.state, d.endpoint),
        };
        match state {
            DeliveryState::InFlight => return Err(PlannerError::InFlight(delivery)),
            DeliveryState::Pending => {}
            DeliveryState::Succeeded | DeliveryState::GaveUp | DeliveryState::Dropped => {
                if self.unfinished(endpoint) >= self.config.max_pending_per_endpoint {
                    return Err(PlannerError::QueueFull(delivery));
                }
                self.finished.retain(|id| *id != delivery);
            }
        }
        if let Some(d) = self.deliveries.get_mut(&delivery) {
            d.single = d.single || state != DeliveryState::Pending;
            d.state = DeliveryState::Pending;
            d.due = Some(now);
        }
        Ok(())
    }

    /// Every delivery held (unfinished and the last finished ones), by id.
    pub fn deliveries(&self) -> Vec<DeliveryInfo> {
        self.deliveries
            .iter()
            .map(|(id, d)| DeliveryInfo {
                id: *id,
                event_id: d.event.id.clone(),
                event_type: d.event.event_type.clone(),
                endpoint: d.endpoint,
                state: d.state,
                attempts: d.attempts,
                next_attempt: d.due,
            })
            .collect()
    }

    fn delay(&self, index: u32) -> u64 {
        usize::try_from(index)
            .ok()
            .and_then(|n| self.config.schedule_ms.get(n))
            .copied()
            .unwrap_or(0)
    }

    fn in_flight(&self, endpoint: EndpointId) -> usize {
        self.deliveries
            .values()
            .filter(|d| d.endpoint == endpoint && d.in_flight.is_some())
            .count()
    }

    fn unfinished(&self, endpoint: EndpointId) -> usize {
        self.deliveries
            .values()
            .filter(|d| {
                d.endpoint == endpoint
                    && matches!(d.state, DeliveryState::Pending | DeliveryState::InFlight)
            })
            .count()
    }

    /// Frees a place for one more delivery to `endpoint`: drops its oldest
    /// waiting delivery when full; false when every place is in flight.
    fn make_room(&mut self, endpoint: EndpointId, now: UnixMillis) -> bool {
        if self.unfinished(endpoint) < self.config.max_pending_per_endpoint {
            return true;
        }
        let oldest = self
            .deliveries
            .iter()
            .find(|(_, d)| d.endpoint == endpoint && d.state == DeliveryState::Pending)
            .map(|(id, _)| *id);
        let Some(id) = oldest else {
            return false;
        };
        if let Some(d) = self.deliveries.get_mut(&id) {
            d.state = DeliveryState::Dropped;
            d.due = None;
        }
        self.record(id, None, 0, now, None);
        self.retire(id);
        true
    }

    fn finish_attempt(&mut self, id: DeliveryId, result: AttemptResult, now: UnixMillis) {
        let schedule_len = self.config.schedule_ms.len();
        let Some(d) = self.deliveries.get(&id) else {
            return;
        };
        let attempts = d.attempts;
        let exhausted = d.single || usize::try_from(attempts).map_or(true, |n| n >= schedule_len);
        let next_due = d.last_due.saturating_add(self.delay(attempts));
        let Some(d) = self.deliveries.get_mut(&id) else {
            return;
        };
        let Some(flight) = d.in_flight.take() else {
            return;
        };
        let ok = matches!(result, AttemptResult::Succeeded { .. });
        if ok {
            d.state = DeliveryState::Succeeded;
        } else if exhausted {
            d.state = DeliveryState::GaveUp;
        } else {
            d.state = DeliveryState::Pending;
            d.last_due = next_due;
            d.due = Some(next_due.max(now));
        }
        d.single = false;
        let number = d.attempts;
        let state = d.state;
        self.record(
            id,
            Some((flight.attempt, flight.started)),
            number,
            now,
            Some(result),
        );
        if state != DeliveryState::Pending {
            self.retire(id);
        }
    }

    fn record(
        &mut self,
        id: DeliveryId,
        attempt: Option<(AttemptId, UnixMillis)>,
        number: u32,
        now: UnixMillis,
        result: Option<AttemptResult>,
    ) {
        let Some(d) = self.deliveries.get(&id) else {
            return;
        };
        let url = self
            .endpoints
            .get(d.endpoint)
            .map(|e| e.url.clone())
            .unwrap_or_default();
        if self.records.len() >= MAX_RECORDS {
            self.records.pop_front();
        }
        self.records.push_back(DeliveryRecord {
            attempt: attempt.map(|(a, _)| a),
            delivery: id,
            event_id: d.event.id.clone(),
            event_type: d.event.event_type.clone(),
            endpoint: d.endpoint,
            url,
            number,
            started: attempt.map_or(now, |(_, started)| started),
            finished: now,
            result,
            state: d.state,
            next_attempt: d.due,
        });
    }

    /// Moves a finished delivery to the bounded history.
    fn retire(&mut self, id: DeliveryId) {
        self.finished.retain(|f| *f != id);
        self.finished.push_back(id);
        while self.finished.len() > self.config.max_finished {
            if let Some(old) = self.finished.pop_front() {
                self.deliveries.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests;
