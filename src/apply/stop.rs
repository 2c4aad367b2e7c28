//! Stopping a run between objects: after an interruption (the user's Ctrl-C), or once the API
//! server stops answering, no object is started; the writes in flight finish, so that every
//! object is either applied or not, and the caller can say which.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The caller asked, e.g. on SIGINT or SIGTERM.
    Interrupted,
    /// A write found the API server unreachable, after its retries.
    ServerGone,
}

/// Shared between a run and whoever may stop it; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<AtomicU8>);

const RUNNING: u8 = 0;
const INTERRUPTED: u8 = 1;
const SERVER_GONE: u8 = 2;

impl Stop {
    /// Starts no more objects: the run was interrupted.
    pub fn interrupt(&self) {
        self.set(INTERRUPTED);
    }

    /// Starts no more objects: the server stopped answering.
    pub(super) fn server_gone(&self) {
        self.set(SERVER_GONE);
    }

    fn set(&self, reason: u8) {
        // The first reason stays.
        let _ = self.0.compare_exchange(RUNNING, reason, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Why the run stopped, if it did.
    pub fn reason(&self) -> Option<StopReason> {
        match self.0.load(Ordering::SeqCst) {
            INTERRUPTED => Some(StopReason::Interrupted),
            SERVER_GONE => Some(StopReason::ServerGone),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_stays() {
        let stop = Stop::default();
        assert_eq!(stop.reason(), None);
        let shared = stop.clone();
        shared.server_gone();
        stop.interrupt();
        assert_eq!(stop.reason(), Some(StopReason::ServerGone));
    }
}
