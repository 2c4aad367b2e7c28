//! Writes that lose a race: how often, and how patiently, a write is tried again after a 409
//! Conflict (or whatever else the caller counts as worth another attempt).

use std::fmt::Display;
use std::time::Duration;

use super::error::Error;

/// How often, and how patiently, a write that lost a race (409 Conflict) is tried again.
///
/// Pauses grow exponentially with full jitter: before attempt `n + 1` the pause is a random
/// duration up to `base_delay * 2^(n-1)`, capped at `max_delay`, so that writers that collided
/// spread out instead of colliding again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 0 counts as 1.
    pub attempts: u32,
    /// The longest pause before the second attempt.
    pub base_delay: Duration,
    /// No pause is longer than this.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// Five attempts, pauses up to 200 ms, 400 ms, 800 ms and 1.6 s: 20 writers racing on one
    /// object all succeed, mostly by the third attempt.
    fn default() -> Self {
        RetryPolicy { attempts: 5, base_delay: Duration::from_millis(200), max_delay: Duration::from_secs(2) }
    }
}

impl RetryPolicy {
    /// This policy with `attempts` attempts in all.
    pub fn with_attempts(self, attempts: u32) -> Self {
        RetryPolicy { attempts, ..self }
    }

    /// The longest pause after failed attempt `attempt` (counted from 1).
    pub fn max_pause(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(30);
        self.base_delay.saturating_mul(1 << doublings).min(self.max_delay)
    }

    /// A random pause after failed attempt `attempt`, up to [`RetryPolicy::max_pause`].
    pub fn pause(&self, attempt: u32) -> Duration {
        self.max_pause(attempt).mul_f64(fastrand::f64())
    }

    /// Runs `operation` (given the attempt number, from 1) until it succeeds, fails with anything
    /// but a conflict, or the attempts are used up; then returns its last result. `what` names the
    /// write in the log: every attempt is logged at `-v`.
    pub async fn run<T>(&self, what: &str, operation: impl AsyncFnMut(u32) -> Result<T, Error>) -> Result<T, Error> {
        self.run_while(what, Error::is_conflict, operation).await
    }

    /// [`RetryPolicy::run`], trying again after any error that `retryable` accepts.
    pub async fn run_while<T, E: Display>(
        &self,
        what: &str,
        retryable: impl Fn(&E) -> bool,
        mut operation: impl AsyncFnMut(u32) -> Result<T, E>,
    ) -> Result<T, E> {
        let attempts = self.attempts.max(1);
        let mut attempt = 1;
        loop {
            tracing::info!("{what}: attempt {attempt} of {attempts}");
            match operation(attempt).await {
                Err(err) if retryable(&err) && attempt < attempts => {
                    let pause = self.pause(attempt);
                    tracing::info!("{what}: {err}; trying again in {} ms", pause.as_millis());
                    tokio::time::sleep(pause).await;
                    attempt += 1;
                }
                Err(err) if retryable(&err) => {
                    tracing::info!("{what}: failed on the last attempt ({attempts}), giving up");
                    return Err(err);
                }
                result => return result,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn conflict() -> Error {
        Error::from_response(
            http::StatusCode::CONFLICT,
            br#"{"kind":"Status","reason":"Conflict","message":"the object has been modified"}"#,
        )
    }

    fn quick(attempts: u32) -> RetryPolicy {
        RetryPolicy { attempts, base_delay: Duration::from_millis(1), max_delay: Duration::from_millis(2) }
    }

    #[test]
    fn pauses_double_up_to_the_cap() {
        let policy =
            RetryPolicy { attempts: 9, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
        let caps: Vec<u128> = (1..=5).map(|attempt| policy.max_pause(attempt).as_millis()).collect();
        assert_eq!(caps, [10, 20, 40, 50, 50]);
        assert!((0..100).all(|_| policy.pause(2) <= Duration::from_millis(20)));
        assert_eq!(policy.max_pause(u32::MAX), Duration::from_millis(50));
    }

    #[tokio::test]
    async fn retries_conflicts_until_success() {
        let calls = Cell::new(0);
        let result = quick(5)
            .run("test", async |attempt| {
                calls.set(calls.get() + 1);
                if attempt < 3 { Err(conflict()) } else { Ok(attempt) }
            })
            .await;
        assert_eq!(result.unwrap(), 3);
        assert_eq!(calls.get(), 3);
    }

    #[tokio::test]
    async fn gives_up_after_the_last_attempt_with_the_conflict() {
        let calls = Cell::new(0);
        let result: Result<(), Error> = quick(4)
            .run("test", async |_| {
                calls.set(calls.get() + 1);
                Err(conflict())
            })
            .await;
        assert!(result.unwrap_err().is_conflict());
        assert_eq!(calls.get(), 4);
    }

    #[tokio::test]
    async fn other_errors_are_not_retried() {
        let calls = Cell::new(0);
        let result: Result<(), Error> = quick(0)
            .run("test", async |_| {
                calls.set(calls.get() + 1);
                Err(Error::Config("not a conflict".into()))
            })
            .await;
        assert_eq!(result.unwrap_err().to_string(), "not a conflict");
        assert_eq!(calls.get(), 1);
    }
}
