//! The driver protocol's types (`docs/driver-protocol.md`): what every
//! language hands the client as bytes and gets back as JSON.
//!
//! * [`spec`]: [`CallSpec`], the one value for any call, and its kinds;
//! * [`typed`]: the typed single-request kinds (`index`, `table_read`,
//!   `connection_read`, `run_create`, `run_get`) and the requests they are;
//! * [`options`]: [`CallOptions`], per-call headers, idempotency key,
//!   max attempts and timeout;
//! * [`batch`]: [`Batch`], one poll's transmits, events and wake-up;
//! * [`events`]: the JSON of events and of errors ([`ErrorJson`]);
//! * [`bytes`]: the byte-level entries of the client (config JSON, call
//!   spec JSON, responses as header block and body, failures by name,
//!   the limits' view).

pub mod batch;
pub mod bytes;
pub mod events;
pub mod options;
pub mod spec;
pub mod typed;

pub use batch::Batch;
pub use bytes::{millis_from_signed, parse_failure, whole_from_f64, LimitView};
pub use events::{error_status, ErrorJson};
pub use options::CallOptions;
pub use spec::{CallSpec, ConnectionPagesCall, RequestCall, RunPollCall, TablePagesCall};
pub use typed::{run_body, ConnectionRead, TableRead};
