//! Exit statuses and the final stderr line of a failed command. A client
//! error's status is its category's, from the core's one table
//! (`ErrorCategory::classes`, `exit_code`), and its line is the core's
//! sentence; the statuses below are the command's own outcomes.

use crate::interrupt::INTERRUPTED;
use crate::run::Failure;
use acd_core::client::ClientError;
use std::io::ErrorKind;

/// Success.
pub const SUCCESS: u8 = 0;
/// The command's own failure after the API answered (the run ended other
/// than `succeeded`, `--jq` failed, stdout could not be written).
pub const API_ERROR: u8 = 1;
/// Bad command line; nothing was sent.
pub const USAGE: u8 = 2;
/// Gave up (the client stopped before the call ended).
pub const GAVE_UP: u8 = 3;

/// The exit status of `failure` and the line to print, if any.
pub fn describe(failure: &Failure) -> (u8, Option<String>) {
    match failure {
        Failure::Interrupted => (INTERRUPTED, Some("interrupted".to_owned())),
        // A closed pipe (`acd ... | head`) is how the reader says "enough".
        Failure::Output(error) if error.kind() == ErrorKind::BrokenPipe => (SUCCESS, None),
        Failure::Output(error) => (
            API_ERROR,
            Some(format!("error: could not write the output: {error}")),
        ),
        Failure::Client(error) => (code_of(error), Some(line_of(error))),
        Failure::RunEnded(status) => (API_ERROR, Some(format!("error: the run ended {status}"))),
        Failure::Jq(error) => (API_ERROR, Some(format!("error: {error}"))),
        Failure::Stalled => (
            GAVE_UP,
            Some("error: gave up: the client stopped before the call ended".to_owned()),
        ),
    }
}

/// The exit status of a client error: its category's, from the core's table.
pub fn code_of(error: &ClientError) -> u8 {
    error.category().classes().exit_code
}

/// Where the command's credential comes from, said after the core's
/// sentence when an error is about the client's credential.
const CREDENTIAL_FLAGS: &str =
    "the command's credential is --api-key KEY or --token TOKEN (or ACD_API_KEY or ACD_TOKEN)";

/// The final stderr line: the core's sentence (and, when it is about the
/// client's credential, which flags give one).
pub fn line_of(error: &ClientError) -> String {
    let about_credential = match error {
        ClientError::NoCredential { .. } | ClientError::CredentialNotAccepted { .. } => true,
        ClientError::HeaderNotAllowed { header, .. } => acd_core::model::carries_secret(header),
        _ => false,
    };
    if about_credential {
        format!("error: {error}; {CREDENTIAL_FLAGS}")
    } else {
        format!("error: {error}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::client::ErrorCategory;

    #[test]
    fn the_documented_statuses_come_from_the_core_table() {
        // docs/cli.md's table, written by hand: 1 the API answered an error
        // that is not retried or broke the contract; 2 nothing was sent;
        // 3 gave up; 130 cancelled.
        let expected = [
            (ErrorCategory::Config, 2),
            (ErrorCategory::InvalidRequest, 2),
            (ErrorCategory::BadRequest, 1),
            (ErrorCategory::Authentication, 1),
            (ErrorCategory::Permission, 1),
            (ErrorCategory::NotFound, 1),
            (ErrorCategory::RateLimit, 3),
            (ErrorCategory::Server, 3),
            (ErrorCategory::Connection, 3),
            (ErrorCategory::Timeout, 3),
            (ErrorCategory::Interrupted, 3),
            (ErrorCategory::Protocol, 1),
            (ErrorCategory::Cancelled, 130),
        ];
        assert_eq!(expected.len(), ErrorCategory::ALL.len());
        for (category, code) in expected {
            assert_eq!(category.classes().exit_code, code, "{category}");
        }
        let api = ClientError::Api {
            status: 404,
            detail: "No table \"x\".".into(),
            extra: acd_core::client::ExtraMembers::empty(),
            retry_at: None,
        };
        assert_eq!(code_of(&api), 1);
        assert_eq!(
            line_of(&api),
            "error: the API answered 404: No table \"x\"."
        );
    }
}
