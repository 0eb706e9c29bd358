//! How a call of the [`Client`] driver moves on after a successful answer
//! (the next page, the next poll, or done) and how it ends, with the events
//! the caller drains.

use super::calls::{CallId, Kind, Wait};
use super::driver::Client;
use super::error::ClientError;
use super::event::Event;
use super::notice::waiting_message;
use super::random::uniform_inclusive;
use super::response::ApiResponse;
use super::throttle::WaitReason;
use crate::UnixMillis;
use std::sync::Arc;

impl Client {
    pub(super) fn announce_wait(&mut self, id: CallId, wait: Wait, now: UnixMillis) {
        if let Some(call) = self.calls.get_mut(&id) {
            if call.announce(&wait) {
                let message = waiting_message(
                    &call.request.operation_id,
                    now,
                    wait.until,
                    wait.limit.as_ref(),
                    wait.reason,
                );
                self.events.push_back((
                    id,
                    Event::Waiting {
                        until: wait.until,
                        limit: wait.limit,
                        reason: wait.reason,
                        message,
                    },
                ));
            }
        }
    }

    pub(super) fn end_failed(&mut self, id: CallId, error: ClientError) {
        self.calls.remove(&id);
        self.events.push_back((id, Event::Failed(error)));
    }

    fn done(&mut self, id: CallId) {
        self.calls.remove(&id);
        self.events.push_back((id, Event::Done));
    }

    /// A successful answer to the current attempt of call `id`.
    /// `headers` are the answer's (kept for a single request's event).
    pub(super) fn succeeded(
        &mut self,
        id: CallId,
        response: ApiResponse,
        headers: &[(String, String)],
        now: UnixMillis,
    ) {
        let Some(call) = self.calls.get_mut(&id) else {
            return;
        };
        match &mut call.kind {
            Kind::Single => {
                let headers = headers.to_vec();
                self.events
                    .push_back((id, Event::Response { response, headers }));
                self.done(id);
            }
            Kind::Pager(pager) => {
                let Some(records) = response.into_records() else {
                    return self.end_failed(
                        id,
                        ClientError::Protocol {
                            status: 200,
                            problem:
                                "a page request was answered with something other than records"
                                    .into(),
                        },
                    );
                };
                let (page, last) = match pager.advance(&records) {
                    Ok(step) => step,
                    Err(error) => return self.end_failed(id, error),
                };
                let next = pager.next_spec();
                // An empty page after the first only says the previous one
                // was the last: the pager ends without it.
                if !(records.is_empty() && page > 1) {
                    self.events.push_back((
                        id,
                        Event::Page {
                            records,
                            page,
                            last,
                        },
                    ));
                }
                if last {
                    return self.done(id);
                }
                match self.build_for_call(id, &next) {
                    Ok(request) => {
                        if let Some(call) = self.calls.get_mut(&id) {
                            call.next_request(request, UnixMillis::ZERO, WaitReason::Quota);
                        }
                    }
                    Err(error) => self.end_failed(id, error),
                }
            }
            Kind::Poller(poller) => {
                let ApiResponse::Object { value, .. } = response else {
                    return self.end_failed(
                        id,
                        ClientError::Protocol {
                            status: 200,
                            problem: "the run poll was answered with something other than a \
                                      `data` object"
                                .into(),
                        },
                    );
                };
                let span = poller.jitter_span();
                let jitter = uniform_inclusive(self.planner.random(), span);
                let Some(Kind::Poller(poller)) = self.calls.get_mut(&id).map(|c| &mut c.kind)
                else {
                    return;
                };
                let answered = match poller.answered(&value, now, jitter) {
                    Ok(answered) => answered,
                    Err(error) => return self.end_failed(id, error),
                };
                if answered.changed || answered.terminal {
                    self.events.push_back((
                        id,
                        Event::RunStatus {
                            status: answered.status,
                            terminal: answered.terminal,
                            run: value,
                        },
                    ));
                }
                if answered.terminal {
                    return self.done(id);
                }
                let Some(call) = self.calls.get_mut(&id) else {
                    return;
                };
                let request = Arc::clone(&call.request);
                call.next_request(request, answered.next_poll_at, WaitReason::PollInterval);
                self.announce_wait(
                    id,
                    Wait {
                        until: answered.next_poll_at,
                        limit: None,
                        reason: WaitReason::PollInterval,
                    },
                    now,
                );
            }
        }
    }
}
