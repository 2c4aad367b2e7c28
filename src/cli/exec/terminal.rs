//! The local terminal for `-t`: whether stdin is one, its size, and raw mode while a remote
//! terminal runs (restored when dropped), as kubectl's `term.TTY` sets it up.

use std::io::IsTerminal as _;

/// Whether stdin is a terminal.
pub(crate) fn stdin_is_terminal() -> bool {
    std::io::stdin().is_terminal()
}

/// The terminal's (width, height), if stdout is one.
pub(crate) fn size() -> Option<(u16, u16)> {
    // SAFETY: TIOCGWINSZ fills the winsize it is given; nothing else is touched.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let done = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    (done == 0 && size.ws_col > 0).then_some((size.ws_col, size.ws_row))
}

/// Stdin in raw mode until dropped.
pub(crate) struct Raw {
    saved: libc::termios,
}

impl Raw {
    /// Puts stdin in raw mode; `None` when it cannot be.
    pub(crate) fn enter() -> Option<Raw> {
        // SAFETY: tcgetattr and tcsetattr read and write the termios given, for stdin only.
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            libc::cfmakeraw(&mut raw);
            (libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &raw) == 0).then_some(Raw { saved })
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `enter`.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.saved);
        }
    }
}
