//! `acd`: the command-line client of the Agent and Connected-Data API.
//!
//! Every request is built, throttled, retried, paged and interpreted by
//! acd-core's client role; this binary parses the command line, moves bytes
//! over HTTP, waits where the core says and prints the results.
//!
//! Exit status (a client error's is its category's, from the core's table):
//! 0 success; 1 the API answered an error that is not retried, or a
//! response broke the spec; 2 bad command line or configuration (nothing
//! was sent); 3 gave up (attempts, the deadline or the server's patience
//! used up); 130 interrupted.
#![forbid(unsafe_code)]

mod api;
mod args;
mod clock;
mod engine;
mod exit;
mod interrupt;
mod jq;
mod listen;
mod output;
mod pipe;
mod proxy;
mod report;
mod run;
mod setup;
mod transport;
mod webhooks;

use args::{Cli, Command, Shell};
use clap::{CommandFactory, FromArgMatches};
use report::{Reporter, Verbosity};
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = Cli::command()
        .try_get_matches_from(&argv)
        .and_then(|matches| Cli::from_arg_matches(&matches).map(|cli| (cli, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) if error.use_stderr() && args::uses_q_as_jq(&argv) => {
            // `gh api ... -q .id`: here the filter is --jq (-q is --quiet).
            eprintln!("error: unknown option -q: did you mean --jq?");
            eprintln!("(-q without a value is --quiet; filter the output with --jq EXPR)");
            return ExitCode::from(exit::USAGE);
        }
        Err(error) => {
            // Help and version go to stdout with status 0; usage errors to
            // stderr with status 2.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            });
        }
    };
    match &cli.command {
        Command::Completions { shell } => {
            completions(*shell);
            return ExitCode::from(exit::SUCCESS);
        }
        Command::Listen(args) => return ExitCode::from(listen::listen(args)),
        Command::Webhooks(webhooks::WebhooksCommand::Trigger(args)) => {
            return ExitCode::from(webhooks::trigger(args))
        }
        _ => {}
    }
    let verbosity = if cli.global.quiet {
        Verbosity::Quiet
    } else if cli.global.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    let mut reporter = Reporter::new(verbosity);
    let plan = match setup::plan(&cli, &matches) {
        Ok(plan) => plan,
        Err(error) => {
            reporter.say(&format!("error: {error}"));
            return ExitCode::from(exit::USAGE);
        }
    };
    pipe::exit_when_stdout_closes();
    let interrupt = interrupt::Interrupt::install();
    let code = match run::execute(plan, &mut reporter, &interrupt) {
        Ok(()) => exit::SUCCESS,
        Err(failure) => {
            let (code, message) = exit::describe(&failure);
            if let Some(message) = message {
                reporter.say(&message);
            }
            code
        }
    };
    reporter.finish();
    ExitCode::from(code)
}

fn completions(shell: Shell) {
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(
        generator,
        &mut Cli::command(),
        "acd",
        &mut std::io::stdout(),
    );
}
