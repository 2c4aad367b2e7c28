//! The command lines of kubectl's `create` generators for workloads and access rules
//! (`deployment`, `job`, `cronjob`, `role`, `clusterrole`, `rolebinding`, `clusterrolebinding`):
//! flags read as kubectl reads them, what needs the server looked up (discovery for roles, the
//! CronJob of `job --from`), and the object made by [`crate::generate`]. Printing and creating
//! are `create`'s, the same for every generator.

use std::collections::BTreeMap;

use clap::{ArgAction, Args, Subcommand};
use serde_json::Value;

use super::create::CommonArgs;
use super::{Error, GlobalArgs, Result};
use crate::client::{self, Cluster};
use crate::generate::{self, rbac, workload};

/// The generators of this file, flattened into `create`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum GeneratorCommand {
    /// Create a deployment with the specified name.
    #[command(visible_alias = "deploy", after_help = super::help::CREATE_DEPLOYMENT)]
    Deployment(DeploymentArgs),
    /// Create a job with the specified name.
    #[command(after_help = super::help::CREATE_JOB)]
    Job(JobArgs),
    /// Create a cron job with the specified name.
    #[command(visible_alias = "cj", after_help = super::help::CREATE_CRONJOB)]
    Cronjob(CronJobArgs),
    /// Create a role with single rule.
    #[command(after_help = super::help::CREATE_ROLE)]
    Role(RoleArgs),
    /// Create a cluster role.
    #[command(after_help = super::help::CREATE_CLUSTERROLE)]
    Clusterrole(ClusterRoleArgs),
    /// Create a role binding for a particular role or cluster role.
    #[command(after_help = super::help::CREATE_ROLEBINDING)]
    Rolebinding(RoleBindingArgs),
    /// Create a cluster role binding for a particular cluster role.
    #[command(after_help = super::help::CREATE_CLUSTERROLEBINDING)]
    Clusterrolebinding(ClusterRoleBindingArgs),
}

/// The one NAME and, after `--`, the command of the containers.
#[derive(Debug, Args)]
pub struct NameAndCommand {
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// The containers' command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// `create deployment`.
#[derive(Debug, Args)]
pub struct DeploymentArgs {
    #[command(flatten)]
    positional: NameAndCommand,
    /// Images to run, one container each (comma-separated or repeated).
    #[arg(long, value_name = "IMAGE", value_delimiter = ',')]
    image: Option<Vec<String>>,
    /// The containerPort the first container exposes.
    #[arg(long, value_name = "PORT", default_value_t = -1, allow_negative_numbers = true)]
    port: i32,
    /// Number of replicas.
    #[arg(short = 'r', long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    replicas: i32,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create job`.
#[derive(Debug, Args)]
pub struct JobArgs {
    #[command(flatten)]
    positional: NameAndCommand,
    /// Image to run.
    #[arg(long, value_name = "IMAGE", default_value = "")]
    image: String,
    /// The CronJob to make the Job of: `cronjob/NAME`.
    #[arg(long, value_name = "TYPE/NAME", default_value = "")]
    from: String,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create cronjob`.
#[derive(Debug, Args)]
pub struct CronJobArgs {
    #[command(flatten)]
    positional: NameAndCommand,
    /// Image to run.
    #[arg(long, value_name = "IMAGE")]
    image: Option<String>,
    /// The schedule, in cron format.
    #[arg(long, value_name = "CRON")]
    schedule: Option<String>,
    /// The pods' restart policy: OnFailure (the default) or Never.
    #[arg(long, value_name = "POLICY", default_value = "")]
    restart: String,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create role`.
#[derive(Debug, Args)]
pub struct RoleArgs {
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// Verbs the rule allows (comma-separated or repeated).
    #[arg(long, value_name = "VERB", value_delimiter = ',')]
    verb: Vec<String>,
    /// Resources the rule applies to: RESOURCE[.GROUP][/SUBRESOURCE] (comma-separated or repeated).
    #[arg(long, value_name = "RESOURCE", value_delimiter = ',')]
    resource: Vec<String>,
    /// Names of the objects the rule is limited to (repeatable).
    #[arg(long, value_name = "NAME", action = ArgAction::Append)]
    resource_name: Vec<String>,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create clusterrole`.
#[derive(Debug, Args)]
pub struct ClusterRoleArgs {
    #[command(flatten)]
    role: RoleArgs,
    /// Partial URLs the rule allows (comma-separated or repeated).
    #[arg(long, value_name = "URL", value_delimiter = ',')]
    non_resource_url: Vec<String>,
    /// Labels of the ClusterRoles to aggregate: KEY=VALUE (comma-separated or repeated).
    #[arg(long, value_name = "KEY=VALUE", value_delimiter = ',', value_parser = label_pair)]
    aggregation_rule: Vec<(String, String)>,
}

/// The subjects of a binding.
#[derive(Debug, Args)]
pub struct SubjectArgs {
    /// Users to bind (repeatable); given as `--user`, as in kubectl (here `--user` names a
    /// subject, not the kubeconfig user).
    #[arg(id = "subject_user", long = "subject-user", value_name = "NAME", action = ArgAction::Append)]
    user: Vec<String>,
    /// Groups to bind (repeatable).
    #[arg(long, value_name = "NAME", action = ArgAction::Append)]
    group: Vec<String>,
    /// Service accounts to bind, as NAMESPACE:NAME (repeatable).
    #[arg(long, value_name = "NAMESPACE:NAME", action = ArgAction::Append)]
    serviceaccount: Vec<String>,
}

/// `create rolebinding`.
#[derive(Debug, Args)]
pub struct RoleBindingArgs {
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// The Role to bind.
    #[arg(long, value_name = "NAME", default_value = "")]
    role: String,
    /// The ClusterRole to bind.
    #[arg(long, value_name = "NAME", default_value = "")]
    clusterrole: String,
    #[command(flatten)]
    subjects: SubjectArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create clusterrolebinding`.
#[derive(Debug, Args)]
pub struct ClusterRoleBindingArgs {
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// The ClusterRole to bind.
    #[arg(long, value_name = "NAME")]
    clusterrole: Option<String>,
    #[command(flatten)]
    subjects: SubjectArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// pflag's `KEY=VALUE` of a map flag.
fn label_pair(text: &str) -> std::result::Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .ok_or_else(|| "malformed pair, expect string=string".to_string())
}

impl GeneratorCommand {
    /// The flags every generator shares.
    pub fn common(&self) -> &CommonArgs {
        match self {
            GeneratorCommand::Deployment(args) => &args.common,
            GeneratorCommand::Job(args) => &args.common,
            GeneratorCommand::Cronjob(args) => &args.common,
            GeneratorCommand::Role(args) => &args.common,
            GeneratorCommand::Clusterrole(args) => &args.role.common,
            GeneratorCommand::Rolebinding(args) => &args.common,
            GeneratorCommand::Clusterrolebinding(args) => &args.common,
        }
    }

    /// The object the generator makes, checked in kubectl's order: required flags, the one NAME,
    /// then the generator's own checks.
    pub async fn object(&self, global: &GlobalArgs) -> Result<Value> {
        match self {
            GeneratorCommand::Deployment(args) => {
                let images = required(&[("image", args.image.as_ref())])?;
                let name = one_name(&args.positional.names, "deployment")?;
                let options = workload::DeploymentOptions {
                    name,
                    images: images.into_iter().next().cloned().unwrap_or_default(),
                    port: (args.port >= 0).then_some(args.port),
                    replicas: args.replicas,
                    command: args.positional.command.clone(),
                };
                Ok(workload::deployment(&options, &mut workload::random_suffix)?)
            }
            GeneratorCommand::Job(args) => {
                let options = workload::JobOptions {
                    name: one_name(&args.positional.names, "job")?,
                    image: args.image.clone(),
                    from: args.from.clone(),
                    command: args.positional.command.clone(),
                };
                workload::check_job(&options)?;
                if options.from.is_empty() {
                    return Ok(workload::job(&options));
                }
                let cron_job = cron_job(&global.connect().await?, &options.from, global).await?;
                Ok(workload::job_from_cron_job(&options.name, &cron_job))
            }
            GeneratorCommand::Cronjob(args) => {
                let given = required(&[("image", args.image.as_ref()), ("schedule", args.schedule.as_ref())])?;
                let options = workload::CronJobOptions {
                    name: one_name(&args.positional.names, "cronjob")?,
                    image: given[0].clone(),
                    schedule: given[1].clone(),
                    restart: args.restart.clone(),
                    command: args.positional.command.clone(),
                };
                Ok(workload::cron_job(&options))
            }
            GeneratorCommand::Role(args) => {
                let options = role_options(args, "role")?;
                with_lookup(&options, global, |lookup, warn| rbac::role(&options, lookup, warn)).await
            }
            GeneratorCommand::Clusterrole(args) => {
                let options = rbac::RoleOptions {
                    non_resource_urls: args.non_resource_url.clone(),
                    aggregation_rule: args.aggregation_rule.iter().cloned().collect::<BTreeMap<_, _>>(),
                    ..role_options(&args.role, "clusterrole")?
                };
                with_lookup(&options, global, |lookup, warn| rbac::cluster_role(&options, lookup, warn)).await
            }
            GeneratorCommand::Rolebinding(args) => Ok(rbac::role_binding(&binding_options(
                one_name(&args.names, "rolebinding")?,
                &args.role,
                &args.clusterrole,
                &args.subjects,
            ))?),
            GeneratorCommand::Clusterrolebinding(args) => {
                let [cluster_role] = required(&[("clusterrole", args.clusterrole.as_ref())])?[..] else {
                    unreachable!("one flag asked for")
                };
                let name = one_name(&args.names, "clusterrolebinding")?;
                Ok(rbac::cluster_role_binding(&binding_options(name, "", cluster_role, &args.subjects))?)
            }
        }
    }
}

/// The values of flags cobra requires, or its words for those not given (in its sorted order).
fn required<'a, T>(flags: &[(&str, Option<&'a T>)]) -> Result<Vec<&'a T>> {
    let mut missing: Vec<&str> = flags.iter().filter(|(_, value)| value.is_none()).map(|(name, _)| *name).collect();
    if missing.is_empty() {
        return Ok(flags.iter().filter_map(|(_, value)| *value).collect());
    }
    missing.sort_unstable();
    Err(Error::msg(format!("required flag(s) \"{}\" not set", missing.join("\", \""))))
}

/// The one NAME a generator takes (the words after `--` not counted), or kubectl's usage error.
pub(super) fn one_name(names: &[String], generator: &str) -> Result<String> {
    match names {
        [name] => Ok(name.clone()),
        _ => Err(Error::msg(format!(
            "exactly one NAME is required, got {}\nSee 'kubeupd create {generator} -h' for help and examples",
            names.len()
        ))),
    }
}

fn role_options(args: &RoleArgs, generator: &str) -> Result<rbac::RoleOptions> {
    Ok(rbac::RoleOptions {
        name: one_name(&args.names, generator)?,
        verbs: args.verb.clone(),
        resources: rbac::resource_refs(&args.resource),
        resource_names: args.resource_name.clone(),
        ..Default::default()
    })
}

/// Runs `generator` with the resources of `options` looked up in the server's discovery first,
/// and its warnings printed as kubectl prints them.
async fn with_lookup(
    options: &rbac::RoleOptions,
    global: &GlobalArgs,
    generator: impl FnOnce(rbac::Lookup, &mut dyn FnMut(String)) -> Result<Value, generate::Error>,
) -> Result<Value> {
    let mut found: Vec<(rbac::ResourceRef, rbac::GroupResource)> = Vec::new();
    let wanted: Vec<&rbac::ResourceRef> = options.resources.iter().filter(|resource| resource.needs_lookup()).collect();
    if !wanted.is_empty() {
        let cluster = global.connect().await?;
        for resource in wanted {
            match cluster.resolve(&resource.type_arg()).await {
                Ok(rt) => {
                    found.push((resource.clone(), rbac::GroupResource { group: rt.group, resource: rt.resource }))
                }
                Err(client::Error::Mapping(_)) => {}
                Err(err) => return Err(err.into()),
            }
        }
    }
    let lookup = |resource: &rbac::ResourceRef| {
        found.iter().find(|(given, _)| given == resource).map(|(_, served)| served.clone())
    };
    Ok(generator(&lookup, &mut |warning| eprintln!("{warning}"))?)
}

fn binding_options(name: String, role: &str, cluster_role: &str, subjects: &SubjectArgs) -> rbac::BindingOptions {
    rbac::BindingOptions {
        name,
        role: role.into(),
        cluster_role: cluster_role.into(),
        users: subjects.user.clone(),
        groups: subjects.group.clone(),
        service_accounts: subjects.serviceaccount.clone(),
    }
}

/// The CronJob `--from` names (`TYPE/NAME`), read from the server as kubectl's builder reads it.
async fn cron_job(cluster: &Cluster, from: &str, global: &GlobalArgs) -> Result<Value> {
    let Some((type_arg, name)) = from.split_once('/') else {
        // kubectl lists every object of a bare type and takes the one there is; kubeupd wants
        // it named.
        cluster.resolve(from).await?;
        return Err(generate::Error::FromNotACronJob.into());
    };
    let rt = cluster.resolve(type_arg).await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let object = cluster.get(&rt, rt.namespaced.then_some(namespace.as_str()), name).await?;
    if rt.kind != "CronJob" {
        return Err(generate::Error::FromUnknownKind { version: rt.version, kind: rt.kind }.into());
    }
    Ok(object)
}
