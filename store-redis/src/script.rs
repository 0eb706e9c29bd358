//! The stacked-decision script (`stack.lua`) and the two ends of one call:
//! [`Prepared`] (keys and arguments of a request's checks) and
//! [`parse_reply`] (the script's five integers back into a
//! [`StackDecision`]).
//!
//! The script is sent once per connection with `SCRIPT LOAD` and then run
//! with `EVALSHA` (the `redis` crate's [`Script`] reloads it transparently
//! after a server restart flushed the script cache).

use crate::error::StoreError;
use crate::keys::KeySpace;
use acd_core::limit::{LimitAlgorithm, LimitCheck, LimitStatus, StackDecision};
use acd_core::UnixMillis;
use redis::{Script, Value};

/// The Lua source of the stacked decision.
pub const STACK_LUA: &str = include_str!("stack.lua");

/// The largest `now` and window (ms) the script accepts: 2^51 ms (about
/// 71 000 years after 1970), so every intermediate value stays an integer
/// below 2^53, exact in Lua's doubles.
pub const MAX_EXACT_MS: u64 = 1 << 51;

/// The script, ready to run.
pub fn stack_script() -> Script {
    Script::new(STACK_LUA)
}

/// The keys and arguments of one stacked decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The distinct keys, in the order of their first check.
    pub keys: Vec<Vec<u8>>,
    /// `ARGV`: algorithm, now, grace, check count, then per check its key
    /// index (1-based), requests and window.
    pub args: Vec<String>,
}

impl Prepared {
    /// The call for `checks` at `now`, or [`StoreError::OutOfDomain`] when a
    /// time or window is too large for the script's exact arithmetic.
    pub fn new(
        space: &KeySpace,
        algorithm: LimitAlgorithm,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
        grace_ms: u64,
    ) -> Result<Self, StoreError> {
        if now.as_millis() > MAX_EXACT_MS {
            return Err(StoreError::OutOfDomain(format!(
                "the time {now} ms is past the Redis store's range (2^51 ms)"
            )));
        }
        let grace_ms = grace_ms.min(MAX_EXACT_MS);
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(checks.len());
        let mut args = Vec::with_capacity(checks.len().saturating_mul(3).saturating_add(4));
        args.push(
            match algorithm {
                LimitAlgorithm::FixedWindow => "fw",
                LimitAlgorithm::Gcra => "gcra",
            }
            .to_owned(),
        );
        args.push(now.to_string());
        args.push(grace_ms.to_string());
        args.push(checks.len().to_string());
        for check in checks {
            let window = check.quota.window();
            if window > MAX_EXACT_MS {
                return Err(StoreError::OutOfDomain(format!(
                    "the {} limit's window of {window} ms is past the Redis store's range \
                     (2^51 ms)",
                    check.name
                )));
            }
            // The same (name, subject) is the same key (the escaping is
            // injective): charged once per check, like `decide_stack`.
            let key = space.key(check.name, check.subject);
            let index = match keys.iter().position(|k| *k == key) {
                Some(index) => index,
                None => {
                    keys.push(key);
                    keys.len().saturating_sub(1)
                }
            };
            args.push(index.saturating_add(1).to_string());
            args.push(check.quota.requests.to_string());
            args.push(window.to_string());
        }
        Ok(Self { keys, args })
    }

    /// Adds the keys and arguments to an invocation of [`stack_script`].
    pub fn invocation<'a>(&self, script: &'a Script) -> redis::ScriptInvocation<'a> {
        let mut invocation = script.prepare_invoke();
        for key in &self.keys {
            invocation.key(key.as_slice());
        }
        for arg in &self.args {
            invocation.arg(arg.as_str());
        }
        invocation
    }

    /// The same call as a plain `EVALSHA` command (e.g. for a pipeline).
    pub fn evalsha(&self, script: &Script) -> redis::Cmd {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(script.get_hash()).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key.as_slice());
        }
        for arg in &self.args {
            cmd.arg(arg.as_str());
        }
        cmd
    }
}

/// The script's reply `{admitted, index, remaining, reset_at, retry_at}` as
/// the decision about `checks`; anything else is [`StoreError::Garbage`].
pub fn parse_reply(reply: &Value, checks: &[LimitCheck<'_>]) -> Result<StackDecision, StoreError> {
    let garbage = |why: &str| StoreError::Garbage(format!("the decision reply {why}"));
    let Value::Array(items) = reply else {
        return Err(garbage("is not an array"));
    };
    let mut numbers = [0_i64; 5];
    if items.len() != numbers.len() {
        return Err(garbage("does not have five members"));
    }
    for (slot, item) in numbers.iter_mut().zip(items) {
        match item {
            Value::Int(n) => *slot = *n,
            _ => return Err(garbage("has a member that is not an integer")),
        }
    }
    let [admitted, index, remaining, reset_at, retry_at] = numbers;
    let time = |n: i64| u64::try_from(n).map_err(|_| garbage("has a negative time"));
    let (reset_at, retry_at) = (
        UnixMillis::new(time(reset_at)?),
        UnixMillis::new(time(retry_at)?),
    );
    let remaining = u32::try_from(remaining).map_err(|_| garbage("has a bad remaining count"))?;
    let status = |index: i64| -> Result<LimitStatus, StoreError> {
        let index = usize::try_from(index).map_err(|_| garbage("names no check"))?;
        let check = checks.get(index).ok_or_else(|| garbage("names no check"))?;
        Ok(LimitStatus {
            index,
            limit: check.quota.requests,
            remaining,
            reset_at,
        })
    };
    match admitted {
        1 if index == -1 && checks.is_empty() => Ok(StackDecision::Admitted { tightest: None }),
        1 => Ok(StackDecision::Admitted {
            tightest: Some(status(index)?),
        }),
        0 if remaining == 0 => Ok(StackDecision::Refused {
            refusing: status(index)?,
            retry_at,
        }),
        _ => Err(garbage("has a bad outcome")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acd_core::limit::Quota;

    fn check<'a>(name: &'a str, subject: &'a str, requests: u32) -> LimitCheck<'a> {
        LimitCheck {
            name,
            quota: Quota::per_seconds(requests, 60),
            subject,
        }
    }

    #[test]
    fn repeated_keys_share_one_key_index() {
        let space = KeySpace::new("t", LimitAlgorithm::FixedWindow).unwrap();
        let checks = [
            check("credential", "k", 100),
            check("user", "ada", 5),
            check("credential", "k", 100),
        ];
        let prepared = Prepared::new(
            &space,
            LimitAlgorithm::FixedWindow,
            &checks,
            UnixMillis::new(1_000),
            2,
        )
        .unwrap();
        assert_eq!(prepared.keys.len(), 2);
        assert_eq!(
            prepared.args,
            ["fw", "1000", "2", "3", "1", "100", "60000", "2", "5", "60000", "1", "100", "60000"]
        );
    }

    #[test]
    fn times_past_the_exact_range_are_refused() {
        let space = KeySpace::new("t", LimitAlgorithm::Gcra).unwrap();
        let checks = [check("credential", "k", 1)];
        assert!(Prepared::new(
            &space,
            LimitAlgorithm::Gcra,
            &checks,
            UnixMillis::new(MAX_EXACT_MS),
            0
        )
        .is_ok());
        let late = Prepared::new(
            &space,
            LimitAlgorithm::Gcra,
            &checks,
            UnixMillis::new(MAX_EXACT_MS + 1),
            0,
        );
        assert!(matches!(late, Err(StoreError::OutOfDomain(_))));
        let long = [LimitCheck {
            quota: Quota {
                requests: 1,
                window_ms: MAX_EXACT_MS + 1,
            },
            ..checks[0]
        }];
        let long = Prepared::new(&space, LimitAlgorithm::Gcra, &long, UnixMillis::new(0), 0);
        assert!(matches!(long, Err(StoreError::OutOfDomain(_))));
    }

    #[test]
    fn replies_become_decisions_and_garbage_is_named() {
        let checks = [check("credential", "k", 100), check("user", "ada", 5)];
        let ints = |v: [i64; 5]| Value::Array(v.iter().map(|n| Value::Int(*n)).collect());
        assert_eq!(
            parse_reply(&ints([1, 1, 4, 60_000, 7]), &checks).unwrap(),
            StackDecision::Admitted {
                tightest: Some(LimitStatus {
                    index: 1,
                    limit: 5,
                    remaining: 4,
                    reset_at: UnixMillis::new(60_000)
                })
            }
        );
        assert_eq!(
            parse_reply(&ints([0, 0, 0, 60_000, 60_000]), &checks).unwrap(),
            StackDecision::Refused {
                refusing: LimitStatus {
                    index: 0,
                    limit: 100,
                    remaining: 0,
                    reset_at: UnixMillis::new(60_000)
                },
                retry_at: UnixMillis::new(60_000)
            }
        );
        for bad in [
            ints([1, 2, 0, 0, 0]),
            ints([1, -1, 0, 0, 0]),
            ints([2, 0, 0, 0, 0]),
            ints([0, 0, 3, 0, 0]),
            ints([1, 0, -1, 0, 0]),
            ints([1, 0, 0, -5, 0]),
            Value::Okay,
            Value::Array(vec![Value::Int(1)]),
            Value::Array(vec![Value::Nil; 5]),
        ] {
            let error = parse_reply(&bad, &checks).unwrap_err();
            assert!(matches!(error, StoreError::Garbage(_)), "{bad:?}");
        }
    }
}
