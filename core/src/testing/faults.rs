//! Injected failures: what a test server may do instead of answering
//! ([`Fault`]), the declarative rules that choose it ([`FaultRule`], seeded,
//! so the same seed gives the same faults), and the Rust hook
//! ([`FaultHook`]) consulted before the rules.

use crate::client::{uniform_inclusive, SplitMix64, TransportFailure};
use crate::UnixMillis;
use serde::{Deserialize, Serialize};

/// What the server does instead of (or after) serving a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The backend fails after the gate admitted the request: the quota is
    /// spent, the rate-limit headers are kept and the body is an `Error`
    /// with this status. A request the gate refuses itself (401, 429, …)
    /// keeps the gate's answer.
    Status(u16),
    /// No response: `connect` never reaches the gate; `timeout` and
    /// `interrupted` are processed by the gate (quota spent) and lost.
    Transport(TransportFailure),
}

/// What a [`FaultHook`] sees of a request (never its headers, which hold
/// the credential).
#[derive(Debug, Clone, Copy)]
pub struct FaultContext<'a> {
    /// The method.
    pub method: &'a str,
    /// The path, without the query.
    pub path: &'a str,
    /// The operation the gate routed it to, when it passed authentication.
    pub operation: Option<&'a str>,
    /// When it arrived.
    pub now: UnixMillis,
    /// Its position among the requests the server received, from 1.
    pub sequence: u64,
}

/// A Rust closure consulted before the rules for every request: `Some`
/// injects that fault, `None` leaves the choice to the rules.
pub type FaultHook = Box<dyn FnMut(&FaultContext<'_>) -> Option<Fault> + Send>;

/// One declarative fault rule. In JSON: exactly one of `status` and
/// `failure`; at most one of `per_mille` and `every` (neither: every
/// matching request); `operation`, `from_ms`, `until_ms` and `times` are
/// optional. The first rule that fires wins.
///
/// ```json
/// {"status": 503, "every": 3, "operation": "listTableRecords"}
/// {"failure": "connect", "per_mille": 100, "times": 2}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultRule {
    /// The status of an injected backend failure (400 to 599).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// A transport failure: `connect`, `timeout` or `interrupted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<TransportFailure>,
    /// Chance per matching request, in thousandths (1000: every one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_mille: Option<u32>,
    /// Fires on every n-th matching request (the n-th, 2n-th, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// Only requests the gate routes to this operation (e.g. `getRun`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// Only from this many ms after the server's start (inclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_ms: Option<u64>,
    /// Only before this many ms after the server's start (exclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_ms: Option<u64>,
    /// Fires at most this many times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
}

impl FaultRule {
    /// A rule injecting `status` on every request (narrow it with the fields).
    pub fn status(status: u16) -> Self {
        Self {
            status: Some(status),
            ..Self::default()
        }
    }

    /// A rule injecting the transport `failure` on every request.
    pub fn failure(failure: TransportFailure) -> Self {
        Self {
            failure: Some(failure),
            ..Self::default()
        }
    }

    /// The fault this rule injects, or why the rule is unusable.
    pub fn fault(&self) -> Result<Fault, String> {
        match (self.status, self.failure) {
            (Some(status), None) if (400..=599).contains(&status) => Ok(Fault::Status(status)),
            (Some(status), None) => Err(format!(
                "status must be an error status from 400 to 599; got {status}"
            )),
            (None, Some(failure)) => Ok(Fault::Transport(failure)),
            (Some(_), Some(_)) => Err("give either status or failure, not both".into()),
            (None, None) => {
                Err("give status (e.g. 503) or failure (connect, timeout or interrupted)".into())
            }
        }
    }

    /// Checks the rule's numbers; `fault` is checked by [`Self::fault`].
    pub fn check(&self) -> Result<(), String> {
        self.fault()?;
        match (self.per_mille, self.every) {
            (Some(_), Some(_)) => return Err("give per_mille or every, not both".into()),
            (Some(per_mille), None) if per_mille > 1_000 => {
                return Err(format!(
                    "per_mille must be from 0 to 1000 (thousandths); got {per_mille}"
                ))
            }
            (None, Some(0)) => return Err("every must be at least 1 (every n-th request)".into()),
            _ => {}
        }
        if let (Some(from), Some(until)) = (self.from_ms, self.until_ms) {
            if until <= from {
                return Err(format!("until_ms ({until}) must be after from_ms ({from})"));
            }
        }
        Ok(())
    }
}

/// The rules with their counters and their random stream.
#[derive(Debug, Clone)]
pub(crate) struct FaultRules {
    rules: Vec<(FaultRule, Fault)>,
    /// Per rule: requests matched, faults fired.
    counts: Vec<(u64, u64)>,
    random: SplitMix64,
}

impl FaultRules {
    /// Checked rules (the error names the rule's position) and a seed.
    pub(crate) fn new(rules: Vec<FaultRule>, seed: u64) -> Result<Self, (usize, String)> {
        let mut checked = Vec::with_capacity(rules.len());
        for (position, rule) in rules.into_iter().enumerate() {
            rule.check().map_err(|problem| (position, problem))?;
            let fault = rule.fault().map_err(|problem| (position, problem))?;
            checked.push((rule, fault));
        }
        Ok(Self {
            counts: vec![(0, 0); checked.len()],
            rules: checked,
            random: SplitMix64::new(seed),
        })
    }

    /// The fault for a request to `operation`, `offset` ms after the
    /// server's start: the first rule that fires. Every matching rule
    /// counts the request (and draws, for `per_mille`), so one rule's
    /// firing does not shift another's count.
    pub(crate) fn pick(&mut self, operation: Option<&str>, offset: u64) -> Option<Fault> {
        let mut chosen = None;
        for ((rule, fault), (matched, fired)) in self.rules.iter().zip(self.counts.iter_mut()) {
            let in_window = rule.from_ms.is_none_or(|from| offset >= from)
                && rule.until_ms.is_none_or(|until| offset < until);
            let operation_matches = rule
                .operation
                .as_deref()
                .is_none_or(|wanted| operation == Some(wanted));
            if !in_window || !operation_matches {
                continue;
            }
            *matched = matched.saturating_add(1);
            let fires = match (rule.per_mille, rule.every) {
                (Some(per_mille), _) => {
                    uniform_inclusive(&mut self.random, 999) < u64::from(per_mille)
                }
                (None, Some(every)) => matched.checked_rem(every) == Some(0),
                (None, None) => true,
            };
            let spent = rule.times.is_some_and(|times| *fired >= times);
            if fires && !spent && chosen.is_none() {
                *fired = fired.saturating_add(1);
                chosen = Some(*fault);
            }
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_third_matching_request_fails_and_times_caps_it() {
        let rule = FaultRule {
            every: Some(3),
            operation: Some("getRun".into()),
            times: Some(2),
            ..FaultRule::status(503)
        };
        let mut rules = FaultRules::new(vec![rule], 1).unwrap();
        let fired: Vec<bool> = (0..12)
            .map(|n| {
                let operation = if n % 2 == 0 {
                    Some("getRun")
                } else {
                    Some("other")
                };
                rules.pick(operation, 0).is_some()
            })
            .collect();
        // getRun requests are n = 0, 2, 4, 6, 8, 10: the 3rd (n=4) and the
        // 6th (n=10) fire; a 9th would not (times = 2).
        let expected: Vec<bool> = (0..12).map(|n| n == 4 || n == 10).collect();
        assert_eq!(fired, expected);
    }

    #[test]
    fn windows_bound_a_rule_and_per_mille_is_seeded() {
        let rule = FaultRule {
            from_ms: Some(100),
            until_ms: Some(200),
            ..FaultRule::failure(TransportFailure::Connect)
        };
        let mut rules = FaultRules::new(vec![rule], 1).unwrap();
        assert_eq!(rules.pick(None, 99), None);
        assert_eq!(
            rules.pick(None, 100),
            Some(Fault::Transport(TransportFailure::Connect))
        );
        assert_eq!(rules.pick(None, 200), None);

        let half = FaultRule {
            per_mille: Some(500),
            ..FaultRule::status(500)
        };
        let draws = |seed| {
            let mut rules = FaultRules::new(vec![half.clone()], seed).unwrap();
            (0..1_000)
                .map(|_| rules.pick(None, 0).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        let fired = draws(7).into_iter().filter(|fired| *fired).count();
        assert!(
            (400..=600).contains(&fired),
            "{fired} of 1000 at 500 per mille"
        );
    }

    #[test]
    fn unusable_rules_are_refused_with_a_sentence() {
        let problem = |rule: FaultRule| FaultRules::new(vec![rule], 1).unwrap_err();
        assert_eq!(
            problem(FaultRule::default()),
            (
                0,
                "give status (e.g. 503) or failure (connect, timeout or interrupted)".into()
            )
        );
        assert_eq!(
            problem(FaultRule::status(200)).1,
            "status must be an error status from 400 to 599; got 200"
        );
        assert_eq!(
            problem(FaultRule {
                per_mille: Some(1_001),
                ..FaultRule::status(503)
            })
            .1,
            "per_mille must be from 0 to 1000 (thousandths); got 1001"
        );
        assert_eq!(
            problem(FaultRule {
                every: Some(0),
                ..FaultRule::status(503)
            })
            .1,
            "every must be at least 1 (every n-th request)"
        );
    }
}
