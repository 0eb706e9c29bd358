//! Where the CPU goes while the bench runs: the Redis server (the whole
//! process, and `EVALSHA` alone, from `INFO`) and the bench process itself
//! (from `/proc/self/stat`).

/// Where the CPU goes while decisions run: the Redis server (whole process,
/// and in `EVALSHA`) and this process.
pub struct Meter {
    con: redis::Connection,
    server_cpu: f64,
    client_cpu: f64,
}

/// A field `name:value` of an `INFO` section, as a number.
fn info_field(info: &str, name: &str) -> f64 {
    info.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Seconds of CPU this process used so far (Linux; 0 elsewhere).
fn own_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends with ')'): utime is the
    // 12th, stime the 13th, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or("");
    let ticks: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    ticks.iter().sum::<f64>() / 100.0
}

impl Meter {
    pub fn start(url: &str) -> Result<Self, String> {
        let client = redis::Client::open(url).map_err(|e| e.to_string())?;
        let mut con = client.get_connection().map_err(|e| e.to_string())?;
        let _: () = redis::cmd("CONFIG")
            .arg("RESETSTAT")
            .query(&mut con)
            .map_err(|e| e.to_string())?;
        let server_cpu = Self::server_cpu(&mut con)?;
        Ok(Self {
            con,
            server_cpu,
            client_cpu: own_cpu(),
        })
    }

    fn server_cpu(con: &mut redis::Connection) -> Result<f64, String> {
        let info: String = redis::cmd("INFO")
            .arg("cpu")
            .query(con)
            .map_err(|e| e.to_string())?;
        Ok(info_field(&info, "used_cpu_sys") + info_field(&info, "used_cpu_user"))
    }

    /// One line: CPU per decision since `start`.
    pub fn report(mut self, decisions: usize) -> Result<String, String> {
        let client = own_cpu() - self.client_cpu;
        let server = Self::server_cpu(&mut self.con)? - self.server_cpu;
        let (calls, usec) = evalsha_stats(&mut self.con)?;
        let n = decisions.max(1) as f64;
        Ok(format!(
            "cpu: server {:.2} us/decision, script {:.2} us/decision ({:.1} us per EVALSHA, \
             {:.1} decisions per call), client {:.2} us/decision",
            server * 1e6 / n,
            usec / n,
            if calls > 0.0 { usec / calls } else { 0.0 },
            if calls > 0.0 { n / calls } else { 0.0 },
            client * 1e6 / n
        ))
    }
}

/// `EVALSHA`'s calls and microseconds in the server since the last
/// `CONFIG RESETSTAT` (`INFO commandstats`).
pub fn evalsha_stats(con: &mut redis::Connection) -> Result<(f64, f64), String> {
    let stats: String = redis::cmd("INFO")
        .arg("commandstats")
        .query(con)
        .map_err(|e| e.to_string())?;
    let evalsha = stats
        .lines()
        .find_map(|line| line.strip_prefix("cmdstat_evalsha:"))
        .unwrap_or("");
    let field = |name: &str| {
        evalsha
            .split(',')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    Ok((field("calls"), field("usec")))
}
