//! Trying again: writes that lose a race (a 409 Conflict, or whatever else the caller counts as
//! worth another attempt), and every request whose failure is transient ([`Transient`]: the server
//! asked to come back later, was briefly unavailable, or the connection failed).

use std::fmt::Display;
use std::time::{Duration, Instant};

use super::error::Error;

/// How often, and how patiently, a write that lost a race (409 Conflict) is tried again.
///
/// Pauses grow exponentially with "equal" jitter: before attempt `n + 1` the pause is a random
/// duration between half and all of `base_delay * 2^(n-1)`, capped at `max_delay`, so that writers
/// that collided spread out instead of colliding again, and none comes straight back into the
/// crowd it just lost to (with full jitter, a pause near zero often did).
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
    /// Eight attempts, pauses of up to 200 ms, 400 ms, 800 ms, 1.6 s and then 2 s (about 9 s at
    /// most in all): 20 writers racing on one object all succeed, mostly by the third attempt,
    /// even on a loaded machine where a read and a write take 50 ms (in a simulation of that,
    /// five attempts with full jitter lost four races in ten; eight lost none).
    fn default() -> Self {
        RetryPolicy { attempts: 8, base_delay: Duration::from_millis(200), max_delay: Duration::from_secs(2) }
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

    /// A random pause after failed attempt `attempt`, between half and all of
    /// [`RetryPolicy::max_pause`].
    pub fn pause(&self, attempt: u32) -> Duration {
        self.max_pause(attempt).mul_f64(0.5 + fastrand::f64() / 2.0)
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

/// How a request that met a transient fault is sent again: 429 (after the server's `Retry-After`),
/// 500, 502, 503 and 504 answers, and connections that failed. Pauses grow exponentially with
/// jitter, as [`RetryPolicy`]'s; a `Retry-After` is honoured as it is. The attempts and the total
/// time are both bounded: a pause that would end past the deadline is not taken, and the last
/// failure is the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Transient {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The pauses between them (without a `Retry-After`).
    pub pauses: RetryPolicy,
    /// No attempt starts this long after the first.
    pub deadline: Duration,
}

impl Default for Transient {
    /// Six attempts, pauses up to 250 ms, 500 ms, 1 s, 2 s and 4 s, all within 30 s: a server
    /// that restarts or loses its etcd leader answers again within that, one that keeps failing
    /// ends in one clear error soon.
    fn default() -> Self {
        Transient {
            attempts: 6,
            pauses: RetryPolicy {
                attempts: 6,
                base_delay: Duration::from_millis(250),
                max_delay: Duration::from_secs(4),
            },
            deadline: Duration::from_secs(30),
        }
    }
}

impl Transient {
    /// The pause before the attempt after failed attempt `attempt` (from 1), which started the
    /// run at `started`; `None` when no attempt is left or the pause would end past the deadline.
    /// `retry_after` is the server's `Retry-After`, when it sent one.
    pub fn pause(&self, attempt: u32, started: Instant, retry_after: Option<Duration>) -> Option<Duration> {
        if attempt >= self.attempts {
            return None;
        }
        let pause = retry_after.unwrap_or_else(|| self.pauses.pause(attempt));
        (started.elapsed() + pause <= self.deadline).then_some(pause)
    }

    /// The pause after failed attempt `attempt` (from 1), the `timeouts`th the server itself timed
    /// out (a 504: its storage did not answer within the server's own request timeout, about 34 s
    /// for kube-apiserver, as while etcd restarts or elects a leader). That wait is the server's,
    /// bounded by the server: the first [`SERVER_TIMEOUTS_PAST_DEADLINE`] such answers are tried
    /// again even past the deadline, so that an etcd away for about a minute (and the apiserver's
    /// reconnection to it, which backs off as long again) is waited for; the attempts still bound
    /// it, and the next one past the deadline is the answer.
    pub fn pause_after_server_timeout(&self, attempt: u32, started: Instant, timeouts: u32) -> Option<Duration> {
        self.pause(attempt, started, None).or_else(|| {
            (timeouts <= SERVER_TIMEOUTS_PAST_DEADLINE && attempt < self.attempts).then(|| self.pauses.pause(attempt))
        })
    }

    /// The pause after the `wait`th refused connection (from 1) of a server that answered before:
    /// it is restarting, which takes as long as it takes, so only the deadline bounds the waits.
    pub fn pause_while_restarting(&self, wait: u32, started: Instant) -> Option<Duration> {
        let pause = self.pauses.pause(wait);
        (started.elapsed() + pause <= self.deadline).then_some(pause)
    }
}

/// How many of the server's own timeouts (504) are tried again past [`Transient::deadline`]:
/// three attempts of about 34 s each outlast an etcd away for a minute.
const SERVER_TIMEOUTS_PAST_DEADLINE: u32 = 2;

/// The seconds of a `Retry-After` header (an HTTP date is not used by the apiserver and is ignored).
pub(crate) fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn transient_faults_are_tried_again_within_the_attempts_and_the_deadline() {
        let policy = Transient::default();
        let now = Instant::now();
        assert!(policy.pause(1, now, None).is_some_and(|pause| pause <= Duration::from_millis(250)));
        assert_eq!(policy.pause(1, now, Some(Duration::from_secs(3))), Some(Duration::from_secs(3)));
        assert_eq!(policy.pause(6, now, None), None, "six attempts in all");
        assert_eq!(policy.pause(1, now, Some(Duration::from_secs(31))), None, "past the deadline");
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::RETRY_AFTER, http::HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(http::header::RETRY_AFTER, http::HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn the_servers_own_timeouts_are_tried_again_twice_past_the_deadline() {
        let policy = Transient::default();
        let long_ago = Instant::now().checked_sub(Duration::from_secs(35)).expect("the clock runs longer than that");
        assert!(
            policy.pause_after_server_timeout(1, long_ago, 1).is_some_and(|pause| pause <= Duration::from_millis(250))
        );
        assert!(policy.pause_after_server_timeout(2, long_ago, 2).is_some(), "the second one too");
        assert_eq!(policy.pause_after_server_timeout(3, long_ago, 3), None, "the third timeout is the answer");
        assert_eq!(policy.pause_after_server_timeout(6, long_ago, 1), None, "six attempts in all");
        assert!(policy.pause_after_server_timeout(3, Instant::now(), 3).is_some(), "within the deadline as any 5xx");
    }

    #[test]
    fn a_restarting_server_is_waited_for_until_the_deadline_whatever_the_attempts() {
        let policy = Transient::default();
        let now = Instant::now();
        assert!(policy.pause_while_restarting(20, now).is_some_and(|pause| pause <= Duration::from_secs(4)));
        let long_ago = now.checked_sub(Duration::from_secs(31)).expect("the clock runs longer than that");
        assert_eq!(policy.pause_while_restarting(1, long_ago), None, "past the deadline");
    }

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
        assert!((0..100).all(|_| (10..=20).contains(&policy.pause(2).as_millis())), "between half and all of the cap");
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
