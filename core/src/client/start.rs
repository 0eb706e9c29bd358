//! Starting calls: [`Client::start`] turns a [`CallSpec`] — a request, a
//! table or connection pager, a run poller, with its per-call options —
//! into a live call whose first request is validated and built before any
//! I/O; later requests of the call (next pages) are built with the same
//! options.

use super::calls::{CallId, CallState, Kind};
use super::driver::Client;
use super::error::ClientError;
use super::paging::PagerState;
use super::polling::PollerState;
use super::request::{ClientRequest, RequestSpec};
use super::wire::CallSpec;
use crate::model::ids::GET_RUN;

impl Client {
    /// Builds `spec` for call `id`, with the call's options: its explicit
    /// idempotency key and its extra headers.
    pub(super) fn build_for_call(
        &mut self,
        id: CallId,
        spec: &RequestSpec,
    ) -> Result<ClientRequest, ClientError> {
        let headers = self
            .calls
            .get(&id)
            .map(|call| call.options.headers.clone())
            .unwrap_or_default();
        let mut request = self.build(spec)?;
        request.headers.extend(headers);
        Ok(request)
    }

    /// Starts the call `spec` describes — a single request, a table or
    /// connection pager, a run poller — with its options; its first
    /// request is validated and built now, before any I/O. A
    /// [`RequestSpec`] converts into a single-request spec.
    pub fn start(&mut self, spec: impl Into<CallSpec>) -> Result<CallId, ClientError> {
        let spec = spec.into();
        let options = spec.options().clone();
        options.check(&self.config.stable_egress_header)?;
        let (kind, mut first) = match spec {
            CallSpec::Request(call) => (Kind::Single, call.spec),
            CallSpec::TablePages(call) => {
                let pager = PagerState::table(&call.table, call.pager);
                let first = pager.next_spec();
                (Kind::Pager(pager), first)
            }
            CallSpec::ConnectionPages(call) => {
                let pager = PagerState::connection(&call.connection, &call.entity, call.pager);
                let first = pager.next_spec();
                (Kind::Pager(pager), first)
            }
            CallSpec::RunPoll(call) => {
                let param = self
                    .config
                    .catalogue
                    .get(GET_RUN)
                    .and_then(|operation| operation.path.param_names().next().map(str::to_owned))
                    .ok_or_else(|| ClientError::UnknownOperation {
                        operation: GET_RUN.into(),
                    })?;
                let mut first = RequestSpec::new(GET_RUN).path(param, call.run_id);
                first.credential = call.credential;
                (Kind::Poller(PollerState::new(call.poll)), first)
            }
        };
        if let Some(key) = &options.idempotency_key {
            if !matches!(kind, Kind::Single) {
                return Err(ClientError::InvalidInput {
                    input: "call options".into(),
                    problem: "idempotency_key applies to a single request; the requests of a \
                              pager or a run poller are reads and need none"
                        .into(),
                });
            }
            first.idempotency_key = Some(key.clone());
        }
        let mut request = self.build(&first)?;
        request.headers.extend(options.headers.iter().cloned());
        self.next_id = self.next_id.saturating_add(1);
        let id = CallId(self.next_id);
        self.calls
            .insert(id, CallState::new(kind, request, options));
        Ok(id)
    }
}
