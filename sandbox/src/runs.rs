//! Agent runs, a sandbox choice (the spec shows no run fields):
//! `POST /api/v1/agents/{agent_id}/runs` creates a run and
//! `GET /api/v1/runs/{run_id}` reads it, both as `{"data": Run}`.
//!
//! A run is `{"id", "agent_id", "status", "created_at_ms", "updated_at_ms"}`
//! (Unix milliseconds of the sandbox clock; `updated_at_ms` is when the
//! current status began). Its status follows the configured lifecycle from
//! its creation: by default `queued` (1 s) → `running` (2 s) → `succeeded`,
//! and for the agent `failing-agent` → `failed`. A run is visible to the
//! user who created it only; others get the same 404 as for an unknown run.
//! At most [`MAX_RUNS`] runs are kept; the oldest is forgotten first. An
//! agent id longer than [`MAX_AGENT_ID_BYTES`] is refused with a 400, so
//! that the runs kept hold at most about `MAX_RUNS × MAX_AGENT_ID_BYTES`.

use crate::config::{fail, ConfigError};
use acd_core::gate::{Admitted, GateResponse, ResourceAnswer};
use acd_core::model::RUN_TERMINAL_STATUSES;
use serde::Deserialize;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;

/// Runs kept at most; creating one more forgets the oldest.
pub const MAX_RUNS: usize = 10_000;
/// Longest agent id (decoded, in bytes) a run may be created for; a longer
/// one is answered 400 with the gate's problem list, `agent_id` named.
pub const MAX_AGENT_ID_BYTES: usize = 256;
/// The agent whose runs fail in the default configuration.
pub const FAILING_AGENT: &str = "failing-agent";
/// Path parameter of run creation.
const AGENT_ID: &str = "agent_id";
/// Path parameter of run reads.
const RUN_ID: &str = "run_id";

/// One step of a lifecycle: a status, held for `duration_ms` (absent on the
/// last, terminal step).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The run's status during this step.
    pub status: String,
    /// How long the step lasts, in milliseconds; absent on the last step.
    #[serde(default)]
    pub duration_ms: Option<u64>,
}

fn step(status: &str, duration_ms: Option<u64>) -> Step {
    Step {
        status: status.to_owned(),
        duration_ms,
    }
}

fn default_lifecycle() -> Vec<Step> {
    vec![
        step("queued", Some(1_000)),
        step("running", Some(2_000)),
        step("succeeded", None),
    ]
}

fn default_agents() -> BTreeMap<String, Vec<Step>> {
    BTreeMap::from([(
        FAILING_AGENT.to_owned(),
        vec![
            step("queued", Some(1_000)),
            step("running", Some(2_000)),
            step("failed", None),
        ],
    )])
}

/// The `runs` member of the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsConfig {
    /// The lifecycle of every agent's runs not listed in `agents`.
    #[serde(default = "default_lifecycle")]
    pub lifecycle: Vec<Step>,
    /// Lifecycles of particular agents (by decoded agent id).
    #[serde(default = "default_agents")]
    pub agents: BTreeMap<String, Vec<Step>>,
}

impl Default for RunsConfig {
    fn default() -> Self {
        Self {
            lifecycle: default_lifecycle(),
            agents: default_agents(),
        }
    }
}

fn check_lifecycle(path: &str, steps: &[Step]) -> Result<(), ConfigError> {
    let Some((last, earlier)) = steps.split_last() else {
        return fail(
            path,
            "needs at least one step, e.g. [{\"status\": \"succeeded\"}]",
        );
    };
    let terminal = |status: &str| RUN_TERMINAL_STATUSES.contains(&status);
    for (n, step) in earlier.iter().enumerate() {
        if step.status.is_empty() || terminal(&step.status) {
            return fail(
                format!("{path}[{n}].status"),
                format!(
                    "{:?} cannot come before the last step; use a non-empty status that is not \
                     terminal ({})",
                    step.status,
                    RUN_TERMINAL_STATUSES.join(", ")
                ),
            );
        }
        if step.duration_ms.is_none_or(|ms| ms < 1) {
            return fail(
                format!("{path}[{n}].duration_ms"),
                "every step but the last needs a duration of at least 1 ms",
            );
        }
    }
    let n = earlier.len();
    if !terminal(&last.status) {
        return fail(
            format!("{path}[{n}].status"),
            format!(
                "the last step must be terminal: one of {}",
                RUN_TERMINAL_STATUSES.join(", ")
            ),
        );
    }
    if last.duration_ms.is_some() {
        return fail(
            format!("{path}[{n}].duration_ms"),
            "the last step lasts for ever; leave its duration out",
        );
    }
    Ok(())
}

impl RunsConfig {
    /// Checks every lifecycle; errors name the JSON path.
    pub fn check(&self) -> Result<(), ConfigError> {
        check_lifecycle("runs.lifecycle", &self.lifecycle)?;
        for (agent, steps) in &self.agents {
            check_lifecycle(&format!("runs.agents.{agent}"), steps)?;
        }
        Ok(())
    }

    fn lifecycle_of(&self, agent_id: &str) -> &[Step] {
        self.agents.get(agent_id).unwrap_or(&self.lifecycle)
    }

    /// When each status of `agent_id`'s runs begins: (ms after the
    /// run's creation, status), in order (what webhooks announce).
    pub fn timeline(&self, agent_id: &str) -> Vec<(u64, String)> {
        let mut began = 0u64;
        let mut out = Vec::new();
        for step in self.lifecycle_of(agent_id) {
            out.push((began, step.status.clone()));
            began = began.saturating_add(step.duration_ms.unwrap_or(0));
        }
        out
    }
}

#[derive(Debug)]
struct Run {
    agent_id: String,
    user: String,
    created_at_ms: u64,
}

#[derive(Debug, Default)]
struct RunTable {
    next: u64,
    runs: HashMap<String, Run>,
    order: VecDeque<String>,
}

/// The runs created so far and their lifecycles.
#[derive(Debug)]
pub struct Runs {
    config: RunsConfig,
    table: Mutex<RunTable>,
}

impl Runs {
    /// The lifecycles.
    pub fn config(&self) -> &RunsConfig {
        &self.config
    }

    /// No runs yet, under a checked `config`.
    pub fn new(config: RunsConfig) -> Self {
        Self {
            config,
            table: Mutex::new(RunTable::default()),
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, RunTable> {
        // A panic while holding the lock cannot leave the table half-written
        // in a way that matters: keep serving.
        self.table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets every run (and restarts the numbering at `run_1`).
    pub fn clear(&self) {
        *self.table() = RunTable::default();
    }

    /// The run object at `now_ms`.
    fn render(&self, id: &str, run: &Run, now_ms: u64) -> Vec<u8> {
        let steps = self.config.lifecycle_of(&run.agent_id);
        let elapsed = now_ms.saturating_sub(run.created_at_ms);
        let mut began = 0u64;
        let mut status = "";
        for step in steps {
            status = &step.status;
            match step.duration_ms {
                Some(duration) if elapsed >= began.saturating_add(duration) => {
                    began = began.saturating_add(duration);
                }
                _ => break,
            }
        }
        serde_json::to_vec(&json!({
            "id": id,
            "agent_id": run.agent_id,
            "status": status,
            "created_at_ms": run.created_at_ms,
            "updated_at_ms": run.created_at_ms.saturating_add(began),
        }))
        .unwrap_or_default()
    }

    /// `createAgentRun`: a new run of the path's agent, created at `now_ms`.
    pub fn create(&self, admitted: Admitted, now_ms: u64) -> GateResponse {
        let (Some(agent_id), Some(user)) =
            (admitted.path_param(AGENT_ID), admitted.principal().user())
        else {
            return admitted.respond(ResourceAnswer::NotFound);
        };
        if agent_id.len() > MAX_AGENT_ID_BYTES {
            let problem = acd_core::model::ParamProblem::new(
                AGENT_ID,
                format!(
                    "is {} bytes long; an agent id is at most {MAX_AGENT_ID_BYTES} bytes",
                    agent_id.len()
                ),
            );
            return admitted.respond(ResourceAnswer::Invalid(vec![problem]));
        }
        let run = Run {
            agent_id: agent_id.to_owned(),
            user: user.to_owned(),
            created_at_ms: now_ms,
        };
        let body = {
            let mut table = self.table();
            table.next = table.next.saturating_add(1);
            let id = format!("run_{}", table.next);
            let body = self.render(&id, &run, now_ms);
            if table.order.len() >= MAX_RUNS {
                if let Some(oldest) = table.order.pop_front() {
                    table.runs.remove(&oldest);
                }
            }
            table.order.push_back(id.clone());
            table.runs.insert(id, run);
            body
        };
        admitted.respond(ResourceAnswer::Found(body))
    }

    /// `getRun`: the run as it is at `now_ms`, to the user who created it.
    pub fn get(&self, admitted: Admitted, now_ms: u64) -> GateResponse {
        let user = admitted.principal().user();
        let body = admitted.path_param(RUN_ID).and_then(|id| {
            let table = self.table();
            table
                .runs
                .get(id)
                .filter(|run| Some(run.user.as_str()) == user)
                .map(|run| self.render(id, run, now_ms))
        });
        match body {
            Some(body) => admitted.respond(ResourceAnswer::Found(body)),
            None => admitted.respond(ResourceAnswer::NotFound),
        }
    }
}

#[cfg(test)]
mod tests;
