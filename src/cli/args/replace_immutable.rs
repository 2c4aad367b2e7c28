//! `--replace-immutable`.

use clap::Args;

/// `--replace-immutable`: delete and create again the objects whose change touches a field that
/// cannot change, instead of refusing them.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ReplaceImmutableArg {
    /// Replace (delete, wait until gone, create again) each object whose configuration changes a
    /// field the server does not let change, such as a Job's pod template; without it such an
    /// object is refused before any write, unless it opts in itself (kapp's
    /// kapp.k14s.io/update-strategy: fallback-on-replace, Argo CD's
    /// argocd.argoproj.io/sync-options: Replace=true or Force=true, Flux's
    /// kustomize.toolkit.fluxcd.io/force: enabled).
    #[arg(long = "replace-immutable")]
    pub replace_immutable: bool,
}
