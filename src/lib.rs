//! kubeupd: a kubectl-style client that updates Kubernetes objects correctly.
//!
//! Data flows one way, each layer using only those below it:
//!
//! - [`cli`]: the command line; options parsed by clap, validated, run, and the results printed.
//!   The only layer that knows clap, prints, or uses `anyhow`.
//! - [`fleet`]: one command over several kubeconfig contexts: which contexts, each one's process,
//!   their plan as one; beside [`apply`], whose plans it gathers.
//! - [`apply`]: the apply engine (client-side and server-side apply, forced re-create,
//!   read-modify-write, ordering and concurrency), returning per-object outcomes.
//! - [`wait`]: waiting until objects are ready, deleted, or meet a condition, with watches;
//!   beside [`apply`], and using [`status`], kstatus's readiness rules (pure, no I/O).
//! - [`resource`]: what the user named (`TYPE/NAME`, `-f` files) resolved into objects.
//! - [`client`]: the API server: REST calls, discovery, OpenAPI, retries, typed errors.
//! - [`output`]: printers of objects, tables and diffs, matching kubectl's bytes.
//! - [`kustomize`]: kustomize built in (`-k`, `kubeupd kustomize`): a kustomization in, objects
//!   out; pure, on top of [`merge`] and [`manifest`], files through a loader trait.
//! - [`pods`]: which pods and containers `logs` reads (a workload's selector, kubectl's order of
//!   preference, the default container) and its lines; pure.
//! - [`remote`]: what the streaming verbs (exec, cp, attach, port-forward, run) need that does no
//!   I/O: the channel framing and exit statuses, port specifications, the pod and container
//!   chosen, copy specifications and tar paths.
//! - [`manifest`]: reading `-f` inputs, and label selectors.
//! - [`kubeconfig`]: kubeconfig files as `kubectl config` reads, changes and writes them (client-go's
//!   model, merging and serialization; which file each change goes to), pure: texts in, texts out.
//! - [`generate`]: kubectl's `create` generators (deployment, job, roles, ...): options in, the
//!   object out, pure.
//! - [`change`]: what the update verbs (`label`, `annotate`, `set`) change in an object, pure.
//! - [`merge`]: the pure patch engine, guided by [`schema`] patch metadata.
//! - [`gocompat`]: what must match Go byte for byte, at the bottom, beside [`parallel`]: pure work
//!   spread over the machine's cores when there is enough of it.

pub mod apply;
pub mod change;
pub mod cli;
pub mod client;
pub mod describe;
pub mod fleet;
pub mod generate;
pub mod gocompat;
pub mod kubeconfig;
pub mod kustomize;
pub mod manifest;
pub mod merge;
pub mod output;
pub mod parallel;
pub mod pods;
pub mod remote;
pub mod resource;
pub mod schema;
pub mod status;
pub mod wait;
