//! The command line: global options (accepted before and after the
//! subcommand, each with an environment fallback) and the subcommands.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// acd: the command-line client of the Agent and Connected-Data API.
///
/// Every request is throttled to the API's rate limits before it is sent,
/// retried on 429, 5xx and network failures, and paged for you with --all.
#[derive(Debug, Parser)]
#[command(name = "acd", version, propagate_version = true)]
pub struct Cli {
    /// Options that apply to every command.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted before or after the subcommand (listed after a
/// subcommand's own options in its help, under their own heading).
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// The API's base URL; its paths (/api/v1/...) hang off it [env:
    /// ACD_BASE_URL; default: the core's, the local sandbox
    /// http://127.0.0.1:8080].
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// An API key (sent as X-API-Key) [env: ACD_API_KEY].
    #[arg(long, global = true, value_name = "KEY", allow_hyphen_values = true)]
    pub api_key: Option<String>,
    /// An OAuth access token (sent as a bearer token) [env: ACD_TOKEN].
    #[arg(long, global = true, value_name = "TOKEN", allow_hyphen_values = true)]
    pub token: Option<String>,
    /// The call's timeout, in seconds: the whole call, its rate-limit
    /// waits, retries and exchanges included [default: none].
    #[arg(long, global = true, value_name = "SECONDS")]
    pub deadline: Option<f64>,
    /// How long one exchange may take at most, from sending the request to
    /// the last byte of the response's body, in seconds [default: the
    /// core's exchange timeout, 30]; past it the attempt fails as a timeout.
    #[arg(long, global = true, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Attempts per request, the first included, 429s included
    /// [default: the core's, 5].
    #[arg(long, global = true, value_name = "N")]
    pub max_attempts: Option<u32>,
    /// Before paging (--all), read the API index once so the client paces
    /// itself to the limit the server advertises instead of the spec's.
    #[arg(long, global = true)]
    pub learn_limits: bool,
    /// One stderr line per HTTP exchange (method, path, status, remaining quota).
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,
    /// No progress or wait lines.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The API index (GET /api/v1) as JSON.
    Index,
    /// Table records.
    #[command(subcommand)]
    Tables(TablesCommand),
    /// Records of a connection.
    #[command(subcommand)]
    Connections(ConnectionsCommand),
    /// Agent runs.
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Any operation, raw: prints the response body.
    Api(ApiArgs),
    /// Receives webhook deliveries on loopback, verifies each, prints one line
    /// per event and forwards the verified ones unchanged (docs/webhooks.md).
    Listen(crate::webhooks::ListenArgs),
    /// Webhooks: send a signed test event.
    #[command(subcommand)]
    Webhooks(crate::webhooks::WebhooksCommand),
    /// Shell completions.
    Completions {
        /// The shell.
        shell: Shell,
    },
}

/// `acd tables ...`.
#[derive(Debug, Subcommand)]
pub enum TablesCommand {
    /// Reads a table's records.
    Read(TableReadArgs),
}

/// `acd connections ...`.
#[derive(Debug, Subcommand)]
pub enum ConnectionsCommand {
    /// Reads a connection's records of one entity.
    Read(ConnectionReadArgs),
}

/// `acd runs ...`.
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// Waits for a run to end, printing each status change.
    Wait(RunWaitArgs),
    /// Creates a run of an agent (POST /agents/{agent_id}/runs) and prints it; with
    /// --wait, waits for it to end (exit 0 on succeeded, 1 on failed).
    Create(RunCreateArgs),
}

/// `acd runs create`.
#[derive(Debug, Args)]
pub struct RunCreateArgs {
    /// The agent id.
    pub agent_id: String,
    /// A JSON body (the run's input).
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub data: Option<String>,
    /// Wait for the run to end, printing each status change.
    #[arg(long)]
    pub wait: bool,
    /// Seconds between polls with --wait.
    #[arg(long, value_name = "SECONDS", requires = "wait")]
    pub interval: Option<f64>,
}

/// Whether the command line used `-q` as `gh api` does (`-q .id`: a jq
/// expression after it, or `-q.id`), which here is `--jq`'s place: `-q`
/// alone is `--quiet`.
pub fn uses_q_as_jq(args: &[std::ffi::OsString]) -> bool {
    let looks_like_jq = |text: &str| text.starts_with(['.', '[', '{', '"']);
    let args: Vec<&str> = args.iter().filter_map(|arg| arg.to_str()).collect();
    args.iter()
        .enumerate()
        .any(|(at, arg)| match arg.strip_prefix("-q") {
            Some("") => args.get(at + 1).is_some_and(|next| looks_like_jq(next)),
            Some(rest) => looks_like_jq(rest.trim_start_matches('=')),
            None => false,
        })
}

/// Output formats of records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object per line.
    #[default]
    Jsonl,
    /// One JSON array.
    Json,
    /// A header row, then one row per record.
    Csv,
}

/// Shells with completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// bash.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
}

/// Paging options shared by the record commands.
#[derive(Debug, Args)]
pub struct PagingArgs {
    /// Records of one request (sent as is; checked by the API's rules).
    #[arg(long, value_name = "N")]
    pub limit: Option<String>,
    /// Records to skip.
    #[arg(long, value_name = "N")]
    pub offset: Option<String>,
    /// Every record, page by page.
    #[arg(long)]
    pub all: bool,
    /// Records per page with --all.
    #[arg(long, value_name = "N")]
    pub page_size: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    pub format: Format,
}

/// `acd tables read`.
#[derive(Debug, Args)]
pub struct TableReadArgs {
    /// The table id.
    pub table: String,
    /// Paging and output.
    #[command(flatten)]
    pub paging: PagingArgs,
    /// Column to order by.
    #[arg(long, value_name = "COL")]
    pub order_by: Option<String>,
    /// Descending order.
    #[arg(long)]
    pub desc: bool,
    /// Only records whose order value is greater than VALUE.
    #[arg(long, value_name = "VALUE", allow_hyphen_values = true)]
    pub after: Option<String>,
    /// The order column is unique: page by its values (keyset) instead of offsets.
    #[arg(long)]
    pub unique_order: bool,
}

/// `acd connections read`.
#[derive(Debug, Args)]
pub struct ConnectionReadArgs {
    /// The connection id.
    pub connection: String,
    /// The entity whose records to read.
    #[arg(long, value_name = "ID")]
    pub entity: String,
    /// A filter, as JSON, understood by the connection.
    #[arg(long, value_name = "JSON", allow_hyphen_values = true)]
    pub filter: Option<String>,
    /// Route the request through the stable egress IP.
    #[arg(long)]
    pub stable_egress: bool,
    /// Paging and output.
    #[command(flatten)]
    pub paging: PagingArgs,
}

/// `acd runs wait`.
#[derive(Debug, Args)]
pub struct RunWaitArgs {
    /// The run id.
    pub run_id: String,
    /// Seconds between polls.
    #[arg(long, value_name = "SECONDS")]
    pub interval: Option<f64>,
}

/// `acd api`, with the flags of `gh api`.
#[derive(Debug, Args)]
pub struct ApiArgs {
    /// The HTTP method, e.g. GET.
    pub method: String,
    /// The path: `/api/v1/...` or relative to it (`tables/orders?limit=2`);
    /// a path outside the version root (`/openapi.json`) is sent as given.
    pub path: String,
    /// A JSON body.
    #[arg(
        long,
        value_name = "JSON",
        allow_hyphen_values = true,
        conflicts_with = "input"
    )]
    pub data: Option<String>,
    /// A request header, `Name: value` (repeatable), added to each attempt
    /// after the client's own. A header the client sets itself (credentials,
    /// Accept, Content-Type, Idempotency-Key, ...) is refused.
    #[arg(short = 'H', long = "header", value_name = "NAME:VALUE")]
    pub headers: Vec<String>,
    /// Print the status line and the response headers before the body.
    #[arg(short = 'i', long)]
    pub include: bool,
    /// A string field `key=value`: a query parameter for GET, a member of
    /// the JSON body otherwise (repeatable).
    #[arg(
        short = 'f',
        long = "raw-field",
        value_name = "KEY=VALUE",
        allow_hyphen_values = true
    )]
    pub raw_fields: Vec<String>,
    /// A typed field `key=value`: numbers, true, false and null become JSON
    /// values, `@FILE` the file's text (`@-` stdin); otherwise a string.
    #[arg(
        short = 'F',
        long = "field",
        value_name = "KEY=VALUE",
        allow_hyphen_values = true
    )]
    pub fields: Vec<String>,
    /// The request body from FILE (`-` for stdin), sent as is; fields then
    /// go to the query.
    #[arg(long, value_name = "FILE")]
    pub input: Option<String>,
    /// Every record of a paged read (table or connection records), through
    /// the client's pager: each record once, one JSON object per line.
    #[arg(long)]
    pub paginate: bool,
    /// Filter the JSON output with a jq expression (each result on its own
    /// line; strings as raw text). With --paginate it runs on each record.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub jq: Option<String>,
}
