//! Many clusters in one command: `--context a,b` or `--context 'prod-*'` runs the verb once per
//! context it selects, concurrently, and gathers what they did.
//!
//! Each context runs as its own kubeupd process with `--context NAME`: every verb then works as it
//! does for one cluster, byte for byte, each cluster has its own discovery, cache, connections and
//! failures, and nothing one cluster does can hold another's lines mid-line. This module chooses
//! the contexts, writes each one's command line, runs them and reads back what each did; the
//! command line prints (`cli::fleet`).

pub mod command_line;
pub mod plan;
pub mod run;
pub mod select;
pub mod totals;

pub use plan::FleetPlan;
pub use run::{Finished, Stream};
pub use select::{SelectError, select};
pub use totals::Totals;
