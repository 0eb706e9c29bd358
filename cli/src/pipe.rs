//! A closed stdout ends the command at once: `acd ... | head -2` stops when
//! `head` exits, also while the command sleeps for a rate limit or waits
//! for a run, when nothing is written that could fail with EPIPE.
//!
//! When stdout is a pipe or a socket, a thread waits on it (`poll` with no
//! event asked: the kernel still reports an error or a hang-up, which is
//! what a pipe whose reader has gone reports) and exits with status 0, the
//! status of a closed pipe found by a write (`exit::describe`).

use std::io::IsTerminal;
use std::os::fd::AsFd;

/// Starts the watcher when stdout is a pipe or a socket.
pub fn exit_when_stdout_closes() {
    let stdout = std::io::stdout();
    if stdout.is_terminal() {
        return;
    }
    let watched = rustix::fs::fstat(stdout.as_fd()).is_ok_and(|stat| {
        matches!(
            rustix::fs::FileType::from_raw_mode(stat.st_mode),
            rustix::fs::FileType::Fifo | rustix::fs::FileType::Socket
        )
    });
    if !watched {
        return;
    }
    let _ = std::thread::Builder::new()
        .name("stdout-watch".into())
        .spawn(|| {
            let stdout = std::io::stdout();
            loop {
                let mut fds = [rustix::event::PollFd::new(
                    &stdout,
                    rustix::event::PollFlags::empty(),
                )];
                match rustix::event::poll(&mut fds, None) {
                    Ok(_) => {
                        let seen = fds[0].revents();
                        let closed = rustix::event::PollFlags::ERR
                            | rustix::event::PollFlags::HUP
                            | rustix::event::PollFlags::NVAL;
                        if seen.intersects(closed) {
                            std::process::exit(i32::from(crate::exit::SUCCESS));
                        }
                    }
                    Err(rustix::io::Errno::INTR) => {}
                    // poll cannot watch it: writes still find EPIPE.
                    Err(_) => return,
                }
            }
        });
}
