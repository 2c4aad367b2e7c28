//! Writes that lose a race: the retry policy for 409 Conflict answers, and the read-modify-write
//! built on it (read the object, change it, replace it carrying the resourceVersion that was read).

use std::time::Duration;

use serde_json::Value;

use super::{ApiError, Cluster, ResourceType, WriteOptions, api_error};

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
    pub async fn run<T>(&self, what: &str, operation: impl AsyncFnMut(u32) -> anyhow::Result<T>) -> anyhow::Result<T> {
        self.run_while(what, is_conflict, operation).await
    }

    /// [`RetryPolicy::run`], trying again after any error that `retryable` accepts.
    pub async fn run_while<T>(
        &self,
        what: &str,
        retryable: impl Fn(&anyhow::Error) -> bool,
        mut operation: impl AsyncFnMut(u32) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let attempts = self.attempts.max(1);
        let mut attempt = 1;
        loop {
            tracing::info!("{what}: attempt {attempt} of {attempts}");
            match operation(attempt).await {
                Err(err) if retryable(&err) && attempt < attempts => {
                    let pause = self.pause(attempt);
                    tracing::info!("{what}: {err:#}; trying again in {} ms", pause.as_millis());
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

/// Whether `err` is the server's 409 Conflict: the object changed since it was read.
pub fn is_conflict(err: &anyhow::Error) -> bool {
    api_error(err).is_some_and(ApiError::is_conflict)
}

/// Options of a read-modify-write.
#[derive(Debug, Clone, Default)]
pub struct ModifyOptions {
    /// How many attempts, and how far apart, when other writers get in between.
    pub retry: RetryPolicy,
    /// Options of the replace: server dry run, field manager, subresource.
    pub write: WriteOptions,
    /// Read and change the object, but send nothing.
    pub client_dry_run: bool,
}

/// What a read-modify-write did.
#[derive(Debug, Clone, PartialEq)]
pub struct Modified {
    /// The object afterwards: the server's answer, what a client dry run computed, or the object
    /// as read when the change left it as it was (then nothing is sent).
    pub object: Value,
    /// Whether the object is different from the one read.
    pub changed: bool,
}

impl Cluster {
    /// Reads the object, lets `change` modify it, and replaces it with the resourceVersion that was
    /// read, so that a write by someone else in between makes the server refuse (409 Conflict)
    /// instead of losing that write. After a conflict the object is read again and `change` applied
    /// again, as `options.retry` allows. When `change` leaves the object as it was, nothing is sent.
    pub async fn read_modify_write(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        options: &ModifyOptions,
        mut change: impl FnMut(&mut Value) -> anyhow::Result<()>,
    ) -> anyhow::Result<Modified> {
        let what = format!("update {}/{name}", rt.group_kind_lower());
        options
            .retry
            .run(&what, async |_| {
                let read = self.get(rt, namespace, name).await?;
                let mut object = read.clone();
                change(&mut object)?;
                if let Some(version) = read.pointer("/metadata/resourceVersion") {
                    object["metadata"]["resourceVersion"] = version.clone();
                }
                if object == read {
                    return Ok(Modified { object, changed: false });
                }
                if options.client_dry_run {
                    return Ok(Modified { object, changed: true });
                }
                let written = self.replace(rt, namespace, name, &object, &options.write).await?;
                Ok(Modified { changed: written != read, object: written })
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn conflict() -> anyhow::Error {
        ApiError { code: 409, reason: "Conflict".into(), message: "the object has been modified".into(), details: None }
            .into()
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
        let result: anyhow::Result<()> = quick(4)
            .run("test", async |_| {
                calls.set(calls.get() + 1);
                Err(conflict())
            })
            .await;
        assert!(is_conflict(&result.unwrap_err()));
        assert_eq!(calls.get(), 4);
    }

    #[tokio::test]
    async fn other_errors_are_not_retried() {
        let calls = Cell::new(0);
        let result: anyhow::Result<()> = quick(0)
            .run("test", async |_| {
                calls.set(calls.get() + 1);
                anyhow::bail!("not found")
            })
            .await;
        assert_eq!(result.unwrap_err().to_string(), "not found");
        assert_eq!(calls.get(), 1);
    }
}
