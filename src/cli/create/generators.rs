//! The command lines of kubectl's `create` generators for workloads, access rules, services,
//! ingresses and policies (`deployment`, `job`, `cronjob`, `role`, `clusterrole`, `rolebinding`,
//! `clusterrolebinding`, `service TYPE`, `ingress`, `poddisruptionbudget`, `priorityclass`,
//! `quota`): flags read as kubectl reads them, what needs the server looked up (discovery for
//! roles, the CronJob of `job --from`), and the object made by [`crate::generate`]. Printing and
//! creating are `create`'s, the same for every generator. `create token`, which creates nothing
//! but asks for a token, is here too.

use std::collections::BTreeMap;

use clap::{ArgAction, Args, Subcommand};
use serde_json::Value;

use super::CommonArgs;
use crate::cli::{Error, GlobalArgs, Result};
use crate::client::{self, Cluster};
use crate::generate::{self, network, policy, rbac, token, workload};
use crate::gocompat;
use crate::output::Verb;
use crate::resource::LabelSelector;

/// The generators of this file, flattened into `create`'s subcommands.
#[derive(Debug, Subcommand)]
pub enum GeneratorCommand {
    /// Create a deployment with the specified name.
    #[command(visible_alias = "deploy", after_help = crate::cli::help::CREATE_DEPLOYMENT)]
    Deployment(DeploymentArgs),
    /// Create a job with the specified name.
    #[command(after_help = crate::cli::help::CREATE_JOB)]
    Job(JobArgs),
    /// Create a cron job with the specified name.
    #[command(visible_alias = "cj", after_help = crate::cli::help::CREATE_CRONJOB)]
    Cronjob(CronJobArgs),
    /// Create a role with single rule.
    #[command(after_help = crate::cli::help::CREATE_ROLE)]
    Role(RoleArgs),
    /// Create a cluster role.
    #[command(after_help = crate::cli::help::CREATE_CLUSTERROLE)]
    Clusterrole(ClusterRoleArgs),
    /// Create a role binding for a particular role or cluster role.
    #[command(after_help = crate::cli::help::CREATE_ROLEBINDING)]
    Rolebinding(RoleBindingArgs),
    /// Create a cluster role binding for a particular cluster role.
    #[command(after_help = crate::cli::help::CREATE_CLUSTERROLEBINDING)]
    Clusterrolebinding(ClusterRoleBindingArgs),
    /// Create a service using a specified subcommand.
    #[command(subcommand, visible_alias = "svc", after_help = crate::cli::help::CREATE_SERVICE)]
    Service(ServiceCommand),
    /// Create an ingress with the specified name.
    #[command(visible_alias = "ing", after_help = crate::cli::help::CREATE_INGRESS)]
    Ingress(IngressArgs),
    /// Create a pod disruption budget with the specified name.
    #[command(visible_alias = "pdb", after_help = crate::cli::help::CREATE_PODDISRUPTIONBUDGET)]
    Poddisruptionbudget(PodDisruptionBudgetArgs),
    /// Create a priority class with the specified name.
    #[command(visible_alias = "pc", after_help = crate::cli::help::CREATE_PRIORITYCLASS)]
    Priorityclass(PriorityClassArgs),
    /// Create a quota with the specified name.
    #[command(visible_alias = "resourcequota", after_help = crate::cli::help::CREATE_QUOTA)]
    Quota(QuotaArgs),
}

/// The types of Service `create service` makes.
#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Create a ClusterIP service.
    #[command(after_help = crate::cli::help::CREATE_SERVICE_CLUSTERIP)]
    Clusterip(ClusterIpArgs),
    /// Create a NodePort service.
    #[command(after_help = crate::cli::help::CREATE_SERVICE_NODEPORT)]
    Nodeport(NodePortArgs),
    /// Create a LoadBalancer service.
    #[command(after_help = crate::cli::help::CREATE_SERVICE_LOADBALANCER)]
    Loadbalancer(ServiceArgs),
    /// Create an ExternalName service.
    #[command(after_help = crate::cli::help::CREATE_SERVICE_EXTERNALNAME)]
    Externalname(ExternalNameArgs),
}

/// What every `create service` takes: NAME, `--tcp` and the common flags.
#[derive(Debug, Args)]
pub struct ServiceArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// Port pairs, PORT[:TARGET_PORT] (comma-separated or repeated).
    #[arg(long, value_name = "PORT[:TARGET]", value_delimiter = ',')]
    tcp: Vec<String>,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create service clusterip`.
#[derive(Debug, Args)]
pub struct ClusterIpArgs {
    #[command(flatten)]
    service: ServiceArgs,
    /// The cluster IP to assign, or `None` for a headless service.
    #[arg(long, value_name = "IP", default_value = "")]
    clusterip: String,
}

/// `create service nodeport`.
#[derive(Debug, Args)]
pub struct NodePortArgs {
    #[command(flatten)]
    service: ServiceArgs,
    /// The port every node exposes the service on.
    #[arg(long, value_name = "PORT", default_value = "0", allow_negative_numbers = true, value_parser = crate::cli::pflag::int)]
    node_port: i64,
}

/// `create service externalname`.
#[derive(Debug, Args)]
pub struct ExternalNameArgs {
    #[command(flatten)]
    service: ServiceArgs,
    /// The DNS name the service stands for.
    #[arg(long, value_name = "NAME")]
    external_name: Option<String>,
}

/// `create ingress`.
#[derive(Debug, Args)]
pub struct IngressArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// The IngressClass to use.
    #[arg(long, value_name = "CLASS", default_value = "")]
    class: String,
    /// A rule: HOST/PATH=SERVICE:PORT[,tls[=SECRET]]; a path ending in `*` is a prefix (repeatable).
    #[arg(long, value_name = "RULE", action = ArgAction::Append)]
    rule: Vec<String>,
    /// The service of requests no rule matches: SERVICE:PORT.
    #[arg(long, value_name = "SERVICE:PORT", default_value = "")]
    default_backend: String,
    /// An annotation of the ingress: KEY=VALUE (repeatable).
    #[arg(long, value_name = "KEY=VALUE", action = ArgAction::Append)]
    annotation: Vec<String>,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create poddisruptionbudget`.
#[derive(Debug, Args)]
pub struct PodDisruptionBudgetArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// The pods the budget applies to: a label selector of equalities and sets.
    #[arg(long, value_name = "SELECTOR", default_value = "")]
    selector: String,
    /// The number or percentage of the pods that must stay available.
    #[arg(long, value_name = "N", default_value = "")]
    min_available: String,
    /// The number or percentage of the pods that may be unavailable.
    #[arg(long, value_name = "N", default_value = "")]
    max_unavailable: String,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create priorityclass`.
#[derive(Debug, Args)]
pub struct PriorityClassArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// The priority of the pods of this class.
    #[arg(long, value_name = "N", default_value = "0", allow_negative_numbers = true, value_parser = crate::cli::pflag::int32)]
    value: i32,
    /// Make this class the priority of pods that name none.
    #[arg(long)]
    global_default: bool,
    /// When the class is meant to be used.
    #[arg(long, value_name = "TEXT", default_value = "")]
    description: String,
    /// Whether pods of this class preempt pods of lower priority: PreemptLowerPriority or Never.
    #[arg(long, value_name = "POLICY", default_value = "PreemptLowerPriority")]
    preemption_policy: String,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create quota`.
#[derive(Debug, Args)]
pub struct QuotaArgs {
    #[command(flatten)]
    name: GeneratorName,
    /// Hard limits: RESOURCE=QUANTITY,...
    #[arg(long, value_name = "LIMITS", default_value = "")]
    hard: String,
    /// The scopes every object the quota counts must match: SCOPE,...
    #[arg(long, value_name = "SCOPES", default_value = "")]
    scopes: String,
    #[command(flatten)]
    common: CommonArgs,
}

/// `create token`.
#[derive(Debug, Args)]
pub struct TokenArgs {
    #[arg(value_name = "SERVICE_ACCOUNT_NAME")]
    names: Vec<String>,
    /// An audience the token is valid for (repeatable); the API server's own by default.
    #[arg(long, value_name = "AUDIENCE", action = ArgAction::Append)]
    audience: Vec<String>,
    /// The lifetime asked for (a Go duration: 1h, 30m); 0 leaves it to the server.
    #[arg(long, value_name = "DURATION", default_value = "0s", allow_negative_numbers = true, value_parser = gocompat::time::parse_duration)]
    duration: i64,
    /// The kind of the object the token is bound to: Node, Pod or Secret.
    #[arg(long, value_name = "KIND", default_value = "")]
    bound_object_kind: String,
    /// The name of the object the token is bound to; the token ends with it.
    #[arg(long, value_name = "NAME", default_value = "")]
    bound_object_name: String,
    /// The uid of the object the token is bound to; the object's current uid by default.
    #[arg(long, value_name = "UID", default_value = "")]
    bound_object_uid: String,
    #[command(flatten)]
    output: crate::cli::args::OutputArgs,
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
    #[arg(long, value_name = "PORT", default_value_t = -1, allow_negative_numbers = true, value_parser = crate::cli::pflag::int32)]
    port: i32,
    /// Number of replicas.
    #[arg(short = 'r', long, value_name = "N", default_value_t = 1, allow_negative_numbers = true, value_parser = crate::cli::pflag::int32)]
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
    #[command(flatten)]
    name: GeneratorName,
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
    #[command(flatten)]
    name: GeneratorName,
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
    #[command(flatten)]
    name: GeneratorName,
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
            GeneratorCommand::Service(command) => &command.service().common,
            GeneratorCommand::Ingress(args) => &args.common,
            GeneratorCommand::Poddisruptionbudget(args) => &args.common,
            GeneratorCommand::Priorityclass(args) => &args.common,
            GeneratorCommand::Quota(args) => &args.common,
        }
    }

    /// The object the generator makes, checked in kubectl's order: required flags, the one NAME,
    /// then the generator's own checks.
    pub async fn object(&self, global: &GlobalArgs) -> Result<Value> {
        match self {
            GeneratorCommand::Deployment(args) => {
                let images = required(&[("image", args.image.as_ref())])?;
                let name = args.common.named(&args.positional.names, "deployment")?;
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
                    name: args.common.named(&args.positional.names, "job")?,
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
                    name: args.common.named(&args.positional.names, "cronjob")?,
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
                args.common.named(&args.name.names, "rolebinding")?,
                &args.role,
                &args.clusterrole,
                &args.subjects,
            ))?),
            GeneratorCommand::Clusterrolebinding(args) => {
                let [cluster_role] = required(&[("clusterrole", args.clusterrole.as_ref())])?[..] else {
                    unreachable!("one flag asked for")
                };
                let name = args.common.named(&args.name.names, "clusterrolebinding")?;
                Ok(rbac::cluster_role_binding(&binding_options(name, "", cluster_role, &args.subjects))?)
            }
            GeneratorCommand::Service(command) => service(command),
            GeneratorCommand::Ingress(args) => {
                let options = network::IngressOptions {
                    name: args.common.named(&args.name.names, "ingress")?,
                    class: args.class.clone(),
                    rules: args.rule.clone(),
                    default_backend: args.default_backend.clone(),
                    annotations: args.annotation.clone(),
                };
                network::check_ingress(&options)?;
                Ok(network::ingress(&options))
            }
            GeneratorCommand::Poddisruptionbudget(args) => {
                let options = policy::PodDisruptionBudgetOptions {
                    name: args.common.named(&args.name.names, "poddisruptionbudget")?,
                    selector: args.selector.clone(),
                    min_available: args.min_available.clone(),
                    max_unavailable: args.max_unavailable.clone(),
                };
                policy::check_pod_disruption_budget(&options)?;
                let selector = options.selector.parse::<LabelSelector>().map_err(|err| Error::msg(err.to_string()))?;
                let selector = selector.label_selector().map_err(generate::Error::Selector)?;
                Ok(policy::pod_disruption_budget(&options, selector))
            }
            GeneratorCommand::Priorityclass(args) => Ok(policy::priority_class(&policy::PriorityClassOptions {
                name: args.common.named(&args.name.names, "priorityclass")?,
                value: args.value,
                global_default: args.global_default,
                description: args.description.clone(),
                preemption_policy: args.preemption_policy.clone(),
            })),
            GeneratorCommand::Quota(args) => Ok(policy::quota(&policy::QuotaOptions {
                name: args.common.named(&args.name.names, "quota")?,
                hard: args.hard.clone(),
                scopes: args.scopes.clone(),
            })?),
        }
    }
}

impl ServiceCommand {
    fn service(&self) -> &ServiceArgs {
        match self {
            ServiceCommand::Clusterip(args) => &args.service,
            ServiceCommand::Nodeport(args) => &args.service,
            ServiceCommand::Loadbalancer(args) => args,
            ServiceCommand::Externalname(args) => &args.service,
        }
    }
}

/// The Service of `create service TYPE`, checked as kubectl checks it: the required
/// `--external-name`, the one NAME, then the options.
fn service(command: &ServiceCommand) -> Result<Value> {
    let args = command.service();
    let (service_type, generator) = match command {
        ServiceCommand::Clusterip(_) => ("ClusterIP", "service clusterip"),
        ServiceCommand::Nodeport(_) => ("NodePort", "service nodeport"),
        ServiceCommand::Loadbalancer(_) => ("LoadBalancer", "service loadbalancer"),
        ServiceCommand::Externalname(_) => ("ExternalName", "service externalname"),
    };
    let mut options = network::ServiceOptions { service_type, tcp: args.tcp.clone(), ..Default::default() };
    match command {
        ServiceCommand::Clusterip(args) => options.cluster_ip = args.clusterip.clone(),
        ServiceCommand::Nodeport(args) => options.node_port = args.node_port,
        ServiceCommand::Externalname(args) => {
            let [external_name] = required(&[("external-name", args.external_name.as_ref())])?[..] else {
                unreachable!("one flag asked for")
            };
            options.external_name = external_name.clone();
        }
        ServiceCommand::Loadbalancer(_) => {}
    }
    options.name = args.common.named(&args.name.names, generator)?;
    network::check_service(&options)?;
    Ok(network::service(&options)?)
}

/// `create token`: a TokenRequest for the service account, in the namespace of `-n` or the
/// context; the token printed alone (with a newline only on a terminal), or the whole answer
/// with `-o`.
pub async fn request_token(args: &TokenArgs, global: &GlobalArgs) -> Result {
    let options = token::TokenOptions {
        service_account: one_name(&args.names, "token")?,
        audiences: args.audience.clone(),
        duration: args.duration,
        bound_kind: args.bound_object_kind.clone(),
        bound_name: args.bound_object_name.clone(),
        bound_uid: args.bound_object_uid.clone(),
    };
    let printer = args.output.printer(Verb::Write)?.cloned();
    let request = token::token_request(&options)?;
    let cluster = global.connect().await?;
    let rt = cluster.resolve("serviceaccounts").await?;
    let namespace = global.namespace.clone().unwrap_or_else(|| cluster.default_namespace().to_string());
    let answer = cluster
        .create_subresource(&rt, Some(&namespace), &options.service_account, "token", &request)
        .await
        .map_err(|err| {
        let reason = err.status().map_or_else(|| err.to_string(), |status| status.message.clone());
        Error::msg(format!("failed to create token: {reason}"))
    })?;
    let token = answer["status"]["token"].as_str().unwrap_or_default();
    if token.is_empty() {
        return Err(Error::msg("failed to create token: no token in server response"));
    }
    match (&printer, args.output.output.as_deref().is_some_and(|output| !output.is_empty())) {
        (Some(printer), true) => crate::cli::write_stdout(&args.output.render(printer, &answer)?),
        _ if std::io::IsTerminal::is_terminal(&std::io::stdout()) => crate::cli::write_stdout(&format!("{token}\n")),
        _ => crate::cli::write_stdout(token),
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

/// The NAME a generator takes, as kubectl's `NameFromCommandArgs` counts it: the words after
/// `--` are no names (cobra's `ArgsLenAtDash`), and the generators without a command leave them
/// unread (`create secret docker-registry NAME ... -- $EXTRA`).
#[derive(Debug, Args)]
pub struct GeneratorName {
    /// The object's name (one; kubectl counts the words given before `--`).
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
    /// Words after `--`: not read.
    #[arg(last = true, hide = true, value_name = "ARGS")]
    after_dash: Vec<String>,
}

/// The one NAME a generator takes (the words after `--` not counted), or kubectl's usage error.
pub(in crate::cli) fn one_name(names: &[String], generator: &str) -> Result<String> {
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
        name: args.common.named(&args.name.names, generator)?,
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
