//! The help that is not a flag's: the verbs listed by kind, as `kubectl --help` lists them, and
//! each verb's Examples, in kubectl's layout (`  # what it does`, then `  kubeupd ...`).
//! Every example line is parsed in the tests below, so an example cannot show a flag kubeupd
//! refuses.

use clap::Command;

/// The verbs by kind, in kubectl's groups and order (a group kubeupd has no verb of is left out).
const GROUPS: &[(&str, &[&str])] = &[
    ("Basic Commands (Beginner)", &["create", "run", "set"]),
    ("Basic Commands (Intermediate)", &["get", "edit", "delete"]),
    ("Deploy Commands", &["rollout", "scale"]),
    ("Cluster Management Commands", &["cluster-info"]),
    (
        "Troubleshooting and Debugging Commands",
        &["describe", "logs", "attach", "exec", "port-forward", "proxy", "cp", "events"],
    ),
    ("Advanced Commands", &["diff", "apply", "patch", "replace", "update", "wait", "kustomize"]),
    ("Settings Commands", &["label", "annotate", "completion"]),
    ("Other Commands", &["api-resources", "api-versions", "config", "version"]),
];

/// `root` with its verbs listed by kind instead of clap's one list; each verb's line is its own
/// `about`.
pub fn with_verbs_by_kind(root: Command) -> Command {
    let width = GROUPS.iter().flat_map(|(_, verbs)| verbs.iter()).map(|verb| verb.len()).max().unwrap_or(0);
    let mut listing = String::new();
    for (group, verbs) in GROUPS {
        listing += &format!("{group}:\n");
        for verb in *verbs {
            let about = root.find_subcommand(verb).and_then(Command::get_about).map(ToString::to_string);
            listing += &format!("  {verb:width$}  {}\n", about.unwrap_or_default());
        }
        listing += "\n";
    }
    let template = format!(
        "{{before-help}}{{about-with-newline}}\n{listing}{{usage-heading}} {{usage}}\n\nOptions:\n{{options}}{{after-help}}"
    );
    root.help_template(template)
}

pub const DESCRIBE: &str = "Examples:
  # Describe a node, and a pod
  kubeupd describe nodes kwok-node-0
  kubeupd describe pods/nginx

  # Describe the pod named in pod.json
  kubeupd describe -f pod.json

  # Describe every pod, and those labelled name=myLabel
  kubeupd describe pods
  kubeupd describe pods -l name=myLabel

  # Describe every pod whose name starts with frontend (when no pod is named frontend)
  kubeupd describe pods frontend";

pub const GET: &str = "Examples:
  # List the pods of the current namespace, with their nodes and IPs
  kubeupd get pods -o wide

  # List the deployments labelled app=web in every namespace
  kubeupd get deployments -l app=web -A

  # Print a deployment as YAML, and only its image with a JSONPath template
  kubeupd get deployment web -o yaml
  kubeupd get deployment web -o jsonpath='{.spec.template.spec.containers[0].image}'

  # List the pods that are not running, sorted by creation time
  kubeupd get pods --field-selector=status.phase!=Running --sort-by=.metadata.creationTimestamp

  # Print the status subresource of a deployment
  kubeupd get deployment web --subresource=status -o json

  # Watch the pods of a deployment as they change
  kubeupd get pods -l app=web --watch

  # Read a path of the server as it is
  kubeupd get --raw /readyz";

pub const UPDATE: &str = "Examples:
  # Set the replicas and the image of deployment web (redone on a fresh read on a conflict)
  kubeupd update deployment web --set spec.replicas=3 \\
    --set 'spec.template.spec.containers[name=app].image=nginx:1.27'

  # Set a label to a string that looks like a number, and remove an annotation
  kubeupd update cm settings --set-string metadata.labels.version=2 \\
    --unset metadata.annotations.note

  # Replace the objects with the ones in a file
  kubeupd update -f app.yaml";

pub const REPLACE: &str = "Examples:
  # Replace a pod with the one in a file
  kubeupd replace -f pod.yaml

  # Replace the objects read from stdin
  kubeupd get deployment web -o yaml | kubeupd replace -f -

  # Delete the objects and create them again from the files
  kubeupd replace --force -f app.yaml";

pub const PATCH: &str = "Examples:
  # Set the replicas of a deployment with a strategic merge patch
  kubeupd patch deployment web -p '{\"spec\":{\"replicas\":3}}'

  # Change the object of a file with a JSON merge patch and print it, without contacting the server
  kubeupd patch -f web.yaml --local -o yaml --type=merge \\
    -p '{\"metadata\":{\"labels\":{\"tier\":\"front\"}}}'

  # Replace the image of the first container with a JSON patch
  kubeupd patch pod web-0 --type=json \\
    -p '[{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\",\"value\":\"nginx:1.27\"}]'

  # Patch a deployment with the patch in a file
  kubeupd patch deployment web --patch-file=patch.yaml

  # Patch the status subresource
  kubeupd patch deployment web --subresource=status --type=merge -p '{\"status\":{\"replicas\":3}}'";

pub const APPLY: &str = "Examples:
  # Apply the objects of a file, or of every file in a directory and below
  kubeupd apply -f app.yaml
  kubeupd apply -R -f manifests/

  # Apply the objects a kustomization builds
  kubeupd apply -k overlays/prod

  # Let the server merge the configuration (server-side apply), taking over conflicting fields
  kubeupd apply --server-side --force-conflicts -f app.yaml

  # Apply, delete what the files no longer have of the ApplySet, and wait until all is ready
  kubeupd apply -f manifests/ --prune --applyset=app-set --wait-ready

  # Show what the server would make of the objects, without changing them
  kubeupd apply -f app.yaml --dry-run=server -o yaml";

pub const VIEW_LAST_APPLIED: &str = "Examples:
  # Print the last-applied configuration of a deployment as YAML, or of config maps as JSON
  kubeupd apply view-last-applied deployment/web
  kubeupd apply view-last-applied configmaps -l app=web -o json";

pub const SET_LAST_APPLIED: &str = "Examples:
  # Record the file's configuration as the last applied one of its objects
  kubeupd apply set-last-applied -f app.yaml

  # Also for objects that have no last-applied annotation yet
  kubeupd apply set-last-applied -f app.yaml --create-annotation";

pub const DIFF: &str = "Examples:
  # Show what applying a file would change
  kubeupd diff -f app.yaml

  # Compare with what a server-side apply would make
  kubeupd diff --server-side -f manifests/ -R

  # One line per object that would change, then the totals
  kubeupd diff -f app.yaml --summary

  # Write the plan that `apply --plan` applies exactly
  kubeupd diff -f app.yaml --plan-out=app.plan";

pub const ROLLOUT: &str = "Examples:
  # Restart the pods of a deployment, and watch the rollout until it is done
  kubeupd rollout restart deployment/web
  kubeupd rollout status deployment/web

  # Roll a deployment back to its previous revision
  kubeupd rollout undo deployment/web";

pub const SET: &str = "Examples:
  # Set the image of container app of deployment web
  kubeupd set image deployment/web app=nginx:1.27

  # Set an environment variable of every container of a deployment
  kubeupd set env deployment/web LOG_LEVEL=debug";

pub const LABEL: &str = "Examples:
  # Label deployment web with tier=frontend; a key that has another value needs --overwrite
  kubeupd label deploy web tier=frontend
  kubeupd label --overwrite deploy/web tier=backend

  # Remove the label tier from every pod labelled app=web
  kubeupd label pods -l app=web tier-

  # Show the labels of a config map
  kubeupd label configmap settings --list";

pub const ANNOTATE: &str = "Examples:
  # Annotate deployment web, replacing the value the key may have
  kubeupd annotate --overwrite deploy web description='my frontend'

  # Annotate deployment web only if it is still at resourceVersion 42
  kubeupd annotate deploy web --resource-version=42 checked=yes

  # Remove the annotation description from every config map in the namespace
  kubeupd annotate configmaps --all description-";

pub const DELETE: &str = "Examples:
  # Delete the objects of a file, and wait until they are gone
  kubeupd delete -f app.yaml

  # Delete config maps by name, and the pods labelled app=web without waiting
  kubeupd delete configmap settings defaults
  kubeupd delete pods -l app=web --wait=false

  # Delete a deployment and leave its replica sets in place
  kubeupd delete deployment/web --cascade=orphan";

pub const LOGS: &str = "Examples:
  # Print the log of pod web (of its only container, or of its default one)
  kubeupd logs web

  # Print the last 20 lines of container app of pod web, with their times
  kubeupd logs web -c app --tail=20 --timestamps

  # Follow the log of a pod of deployment web
  kubeupd logs -f deployment/web

  # Print the logs of every container of the pods labelled app=web, each line after its source
  kubeupd logs -l app=web --all-containers --prefix

  # Follow the logs of the pods labelled app=web, up to 10 at once
  kubeupd logs -f -l app=web --max-log-requests=10

  # Print what the previous instance of container app wrote before it restarted
  kubeupd logs -p -c app web";

pub const EVENTS: &str = "Examples:
  # List the events of the current namespace, oldest first
  kubeupd events

  # List the warnings of every namespace
  kubeupd events -A --types=Warning

  # List the events of a pod, and print new ones as they come
  kubeupd events --for pod/web --watch

  # Print the events as YAML
  kubeupd events -o yaml";

pub const PROXY: &str = "Examples:
  # Serve the API on localhost:8001
  kubeupd proxy

  # Serve it on a free port, printed in the first line
  kubeupd proxy --port=0

  # Serve it under /k8s-api/, so that /k8s-api/api/v1/pods lists pods
  kubeupd proxy --api-prefix=/k8s-api

  # Serve it on a Unix socket
  kubeupd proxy --unix-socket=/tmp/kubeupd-proxy.sock";

pub const SCALE: &str = "Examples:
  # Scale deployment web to 3 replicas
  kubeupd scale --replicas=3 deploy/web

  # Scale it to 5 only if it has 3 now
  kubeupd scale --current-replicas=3 --replicas=5 deployment web

  # Scale every stateful set labelled app=db to 0
  kubeupd scale statefulsets -l app=db --replicas=0";

pub const CREATE: &str = "Examples:
  # Create the objects of a file, or of the JSON read from stdin
  kubeupd create -f app.yaml
  cat pod.json | kubeupd create -f -

  # Edit the objects of a file in your editor before they are created
  kubeupd create -f app.yaml --edit -o json

  # Print a config map instead of creating it, to keep it in a file for apply
  kubeupd create configmap settings --from-literal=mode=fast --dry-run=client -o yaml";

pub const CREATE_CONFIGMAP: &str = "Examples:
  # Create a config map from the files of a directory, each file a key
  kubeupd create configmap settings --from-file=config/

  # Create a config map from literals, and from a file under another key
  kubeupd create configmap settings --from-literal=mode=fast --from-file=app.conf=config/prod.conf

  # Create a config map from an env file, its name suffixed with a hash of the content
  kubeupd create configmap settings --from-env-file=settings.env --append-hash";

pub const CREATE_SECRET: &str = "Examples:
  # Create a secret from literals
  kubeupd create secret generic login --from-literal=username=admin --from-literal=password=s3cret

  # Create a TLS secret from a certificate and its key
  kubeupd create secret tls web-tls --cert=tls.crt --key=tls.key";

pub const CREATE_SECRET_GENERIC: &str = "Examples:
  # Create a secret from files, each file a key
  kubeupd create secret generic keys \\
    --from-file=ssh-privatekey=id_ed25519 --from-file=ssh-publickey=id_ed25519.pub

  # Create a secret from literals, of a type of your own
  kubeupd create secret generic login --type=example.com/login \\
    --from-literal=username=admin --from-literal=password=s3cret";

pub const CREATE_SECRET_DOCKER_REGISTRY: &str = "Examples:
  # Create a secret for a registry, for pods to pull their images with
  kubeupd create secret docker-registry registry-login --docker-server=registry.example \\
    --docker-username=bot --docker-password=s3cret --docker-email=bot@example.com

  # Create it from a Docker config file
  kubeupd create secret docker-registry registry-login --from-file=.dockerconfigjson=config.json";

pub const CREATE_SECRET_TLS: &str = "Examples:
  # Create a TLS secret from a certificate and its key
  kubeupd create secret tls web-tls --cert=tls.crt --key=tls.key";

pub const CREATE_NAMESPACE: &str = "Examples:
  # Create a namespace
  kubeupd create namespace staging";

pub const CREATE_SERVICEACCOUNT: &str = "Examples:
  # Create a service account
  kubeupd create serviceaccount builder";

pub const CREATE_DEPLOYMENT: &str = "Examples:
  # Create a deployment named web that runs the nginx image
  kubeupd create deployment web --image=nginx

  # Create a deployment with a command
  kubeupd create deployment web --image=busybox -- date

  # Create a deployment with 3 replicas and port 80 exposed, printed rather than created
  kubeupd create deployment web --image=nginx --replicas=3 --port=80 --dry-run=client -o yaml";

pub const CREATE_JOB: &str = "Examples:
  # Create a job that runs a command
  kubeupd create job report --image=busybox -- date

  # Create a job from a cron job named nightly
  kubeupd create job nightly-now --from=cronjob/nightly";

pub const CREATE_CRONJOB: &str = "Examples:
  # Create a cron job that runs every minute
  kubeupd create cronjob nightly --image=busybox --schedule=\"*/1 * * * *\" -- date";

pub const CREATE_ROLE: &str = "Examples:
  # Create a role that may get, watch and list pods
  kubeupd create role pod-reader --verb=get,list,watch --resource=pods

  # Create a role for two named pods only
  kubeupd create role pod-reader --verb=get --resource=pods --resource-name=a --resource-name=b

  # Create a role for a subresource
  kubeupd create role status-reader --verb=get --resource=pods/status";

pub const CREATE_CLUSTERROLE: &str = "Examples:
  # Create a cluster role that may get, watch and list pods
  kubeupd create clusterrole pod-reader --verb=get,list,watch --resource=pods

  # Create a cluster role for non-resource URLs
  kubeupd create clusterrole health-reader --verb=get --non-resource-url=/healthz

  # Create a cluster role made of the rules of other cluster roles
  kubeupd create clusterrole monitoring --aggregation-rule=\"example.com/monitoring=true\"";

pub const CREATE_ROLEBINDING: &str = "Examples:
  # Bind the cluster role admin to a user and a service account in one namespace
  kubeupd create rolebinding admin --clusterrole=admin --user=user1 --serviceaccount=ci:builder

  # Bind a role of the namespace to a group
  kubeupd create rolebinding readers --role=pod-reader --group=developers";

pub const CREATE_CLUSTERROLEBINDING: &str = "Examples:
  # Bind the cluster role view to a user and a group in every namespace
  kubeupd create clusterrolebinding viewers --clusterrole=view --user=user1 --group=auditors";

pub const CREATE_SERVICE: &str = "Examples:
  # Create a ClusterIP service that sends port 80 to port 8080 of the pods labelled app=web
  kubeupd create service clusterip web --tcp=80:8080

  # Create a service for a name outside the cluster
  kubeupd create svc externalname db --external-name=db.example.com";

pub const CREATE_SERVICE_CLUSTERIP: &str = "Examples:
  # Create a ClusterIP service named web, port 5678 to the pods' port 8080
  kubeupd create service clusterip web --tcp=5678:8080

  # Create a headless service
  kubeupd create service clusterip web --clusterip=None";

pub const CREATE_SERVICE_NODEPORT: &str = "Examples:
  # Create a NodePort service exposed on port 30080 of every node
  kubeupd create service nodeport web --tcp=80:8080 --node-port=30080";

pub const CREATE_SERVICE_LOADBALANCER: &str = "Examples:
  # Create a LoadBalancer service named web
  kubeupd create service loadbalancer web --tcp=443:https";

pub const CREATE_SERVICE_EXTERNALNAME: &str = "Examples:
  # Create a service that stands for a DNS name
  kubeupd create service externalname db --external-name=db.example.com";

pub const CREATE_INGRESS: &str = "Examples:
  # Send example.com/api to service api port 8080, with TLS from the secret example-tls
  kubeupd create ingress web --rule=\"example.com/api=api:8080,tls=example-tls\"

  # Send every path under /static (a prefix, by its *) to service files, with ingress class nginx
  kubeupd create ingress files --class=nginx --rule=\"/static*=files:http\"

  # Send what no rule matches to a default service, with an annotation
  kubeupd create ingress catch-all --default-backend=fallback:80 --annotation=team=web";

pub const CREATE_PODDISRUPTIONBUDGET: &str = "Examples:
  # Keep at least one pod labelled app=web available
  kubeupd create poddisruptionbudget web --selector=app=web --min-available=1

  # Let at most half of the pods labelled app=db be unavailable
  kubeupd create pdb db --selector=app=db --max-unavailable=50%";

pub const CREATE_PRIORITYCLASS: &str = "Examples:
  # Create a priority class named high
  kubeupd create priorityclass high --value=1000 --description=\"for the front ends\"

  # Create the priority class of pods that name none
  kubeupd create priorityclass normal --value=100 --global-default

  # Create a priority class whose pods never preempt others
  kubeupd create pc batch --value=500 --preemption-policy=Never";

pub const CREATE_QUOTA: &str = "Examples:
  # Limit the CPU, memory and pods of the namespace
  kubeupd create quota compute --hard=cpu=4,memory=8Gi,pods=20

  # Limit the best-effort pods only
  kubeupd create quota best-effort --hard=pods=10 --scopes=BestEffort";

pub const CREATE_TOKEN: &str = "Examples:
  # Print a token of the service account builder of the current namespace
  kubeupd create token builder

  # A token for another audience, valid for two hours
  kubeupd create token builder -n ci --audience=https://vault.example --duration=2h

  # A token that ends when the secret it is bound to is deleted
  kubeupd create token builder --bound-object-kind=Secret --bound-object-name=builder-key";

pub const EDIT: &str = "Examples:
  # Edit a deployment in your editor ($KUBE_EDITOR, $EDITOR, else vi)
  kubeupd edit deployment/web

  # Edit it as JSON, and print the patch sent
  kubeupd edit deployment/web -o json --show-patch

  # Edit the status subresource of a deployment
  kubeupd edit deployment web --subresource=status";

pub const WAIT: &str = "Examples:
  # Wait until a deployment is ready
  kubeupd wait deployment/web

  # Wait until a pod has the condition Ready, for at most a minute
  kubeupd wait --for=condition=Ready pod/web-0 --timeout=60s

  # Wait until the pods labelled app=web are running
  kubeupd wait pods -l app=web --for=jsonpath='{.status.phase}'=Running

  # Wait until a pod is deleted, after asking for it
  kubeupd delete pod/web-0 --wait=false
  kubeupd wait --for=delete pod/web-0 --timeout=60s";

pub const KUSTOMIZE: &str = "Examples:
  # Build the kustomization of the current directory
  kubeupd kustomize

  # Build an overlay that reads files outside its directory
  kubeupd kustomize overlays/prod --load-restrictor=LoadRestrictionsNone";

pub const VERSION: &str = "Examples:
  # Print the versions of kubeupd and of the server
  kubeupd version

  # Print kubeupd's only, as YAML
  kubeupd version --client -o yaml";

pub const CONFIG: &str = "Examples:
  # Show the merged kubeconfig, secrets redacted
  kubeupd config view

  # Switch to another context, and set the current context's namespace
  kubeupd config use-context staging
  kubeupd config set-context --current --namespace=apps";

pub const CONFIG_VIEW: &str = "Examples:
  # Only the current context's entries, certificates and keys included
  kubeupd config view --minify --raw

  # The first user's token
  kubeupd config view --raw -o jsonpath='{.users[0].user.token}'";

pub const CONFIG_CURRENT_CONTEXT: &str = "Examples:
  kubeupd config current-context";

pub const CONFIG_GET_CONTEXTS: &str = "Examples:
  # All contexts, the current one marked with *
  kubeupd config get-contexts

  # One context's row, or only the names
  kubeupd config get-contexts staging
  kubeupd config get-contexts -o name";

pub const CONFIG_GET_CLUSTERS: &str = "Examples:
  kubeupd config get-clusters";

pub const CONFIG_GET_USERS: &str = "Examples:
  kubeupd config get-users";

pub const CONFIG_USE_CONTEXT: &str = "Examples:
  kubeupd config use-context staging";

pub const CONFIG_SET_CONTEXT: &str = "Examples:
  # Set the namespace of the current context
  kubeupd config set-context --current --namespace=apps

  # Add or change a context
  kubeupd config set-context staging --cluster=staging --user=deployer";

pub const CONFIG_SET_CLUSTER: &str = "Examples:
  kubeupd config set-cluster staging --server=https://10.0.0.1:6443 \\
    --certificate-authority=ca.crt --embed-certs";

pub const CONFIG_SET_CREDENTIALS: &str = "Examples:
  # A bearer token
  kubeupd config set-credentials deployer --token=abc123

  # A client certificate, read into the file
  kubeupd config set-credentials admin --client-certificate=admin.crt --client-key=admin.key \\
    --embed-certs";

pub const CONFIG_SET: &str = "Examples:
  kubeupd config set clusters.staging.server https://10.0.0.2:6443
  kubeupd config set contexts.staging.namespace apps";

pub const CONFIG_UNSET: &str = "Examples:
  kubeupd config unset contexts.staging.namespace
  kubeupd config unset current-context";

pub const CONFIG_DELETE_CONTEXT: &str = "Examples:
  kubeupd config delete-context staging";

pub const CONFIG_DELETE_CLUSTER: &str = "Examples:
  kubeupd config delete-cluster staging";

pub const CONFIG_DELETE_USER: &str = "Examples:
  kubeupd config delete-user deployer";

pub const CONFIG_RENAME_CONTEXT: &str = "Examples:
  kubeupd config rename-context staging stage";

pub const API_RESOURCES: &str = "Examples:
  # Every resource type the server serves, and their verbs
  kubeupd api-resources -o wide

  # The namespaced types that can be listed, by name
  kubeupd api-resources --namespaced=true --verbs=list -o name

  # The types of one group
  kubeupd api-resources --api-group=apps";

pub const API_VERSIONS: &str = "Examples:
  kubeupd api-versions";

pub const CLUSTER_INFO: &str = "Examples:
  kubeupd cluster-info";

pub const CLUSTER_INFO_DUMP: &str = "Examples:
  # Handed to the real kubectl on the PATH
  kubeupd cluster-info dump --output-directory=/tmp/cluster-state";

pub const COMPLETION: &str = "Examples:
  # Load completion for bash in the current shell
  source <(kubeupd completion bash)

  # Write the script for zsh where zsh looks for completions
  kubeupd completion zsh > \"${fpath[1]}/_kubeupd\"";

pub const EXEC: &str = "Examples:
  # Run 'date' in pod web, in its default container (the first, unless annotated)
  kubeupd exec web -- date

  # Run 'ls /' in container nginx of pod web
  kubeupd exec web -c nginx -- ls /

  # Send stdin to 'sh' in pod web, and run an interactive shell with a terminal
  kubeupd exec -i web -- sh < script.sh
  kubeupd exec -it web -- sh

  # Run 'date' in the first pod of deployment web, or of service web
  kubeupd exec deploy/web -- date
  kubeupd exec svc/web -- date";

pub const CP: &str = "Examples:
  # Copy the local directory /tmp/foo to /tmp/bar in pod web of namespace ns
  kubeupd cp /tmp/foo ns/web:/tmp/bar

  # Copy /tmp/foo from pod web of the current namespace to the local /tmp/bar
  kubeupd cp web:/tmp/foo /tmp/bar

  # Copy into container nginx of pod web
  kubeupd cp /tmp/foo web:/tmp/bar -c nginx";

pub const ATTACH: &str = "Examples:
  # Print what pod web's default container writes, as it runs
  kubeupd attach web

  # Attach to container nginx of pod web, with stdin and a terminal
  kubeupd attach web -c nginx -i -t

  # Attach to the first pod of deployment web
  kubeupd attach deploy/web";

pub const RUN: &str = "Examples:
  # Start an nginx pod
  kubeupd run nginx --image=nginx

  # Start a pod with a port, environment variables and labels
  kubeupd run web --image=nginx --port=80 --env=A=1 --env=B=2 --labels=app=web,env=prod

  # Print the pod instead of creating it
  kubeupd run nginx --image=nginx --dry-run=client -o yaml

  # Run a command once, print its output, exit with its code and delete the pod
  kubeupd run probe --rm -i --restart=Never --image=busybox -- wget -qO- http://web

  # Start a pod with custom arguments for the image's command, or with a command of your own
  kubeupd run web --image=nginx -- --arg1 --arg2
  kubeupd run web --image=nginx --command -- nginx -g 'daemon off;'";

pub const PORT_FORWARD: &str = "Examples:
  # Listen on ports 5000 and 6000 locally, forwarding to ports 5000 and 6000 of pod web
  kubeupd port-forward pod/web 5000 6000

  # Listen on ports 5000 and 6000 locally, forwarding to a pod of deployment web
  kubeupd port-forward deployment/web 5000 6000

  # Listen on port 8443 locally, forwarding to the pod port of service web's port named https
  kubeupd port-forward service/web 8443:https

  # Listen on a random local port, forwarding to port 5000 of pod web
  kubeupd port-forward pod/web :5000

  # Listen on port 8888 on all addresses, forwarding to port 5000 of pod web
  kubeupd port-forward --address 0.0.0.0 pod/web 8888:5000";

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use clap::{Arg, Command};

    use super::GROUPS;
    use crate::cli::command;

    /// Every command of the tree (the root first), with its path, e.g. `kubeupd create secret tls`.
    fn commands() -> Vec<(String, Command)> {
        fn walk(path: String, command: &Command, into: &mut Vec<(String, Command)>) {
            into.push((path.clone(), command.clone()));
            for sub in command.get_subcommands().filter(|sub| sub.get_name() != "help") {
                walk(format!("{path} {}", sub.get_name()), sub, into);
            }
        }
        let mut root = command();
        root.build();
        let mut all = Vec::new();
        walk("kubeupd".into(), &root, &mut all);
        all
    }

    /// The flags a user can give, clap's own (`--help`, `--version`) left out.
    fn flags(command: &Command) -> impl Iterator<Item = &Arg> {
        let own = |arg: &&Arg| !matches!(arg.get_id().as_str(), "help" | "version");
        command.get_arguments().filter(|arg| !arg.is_positional()).filter(own)
    }

    /// Where kubectl 1.37 itself gives one of these shorthands another meaning.
    /// (`kustomize -o` names a file to write, where every other verb's `-o` names a format.)
    const KUBECTLS_OWN_MEANINGS: &[(&str, char)] =
        &[("kubeupd logs", 'f'), ("kubeupd run", 'l'), ("kubeupd kustomize", 'o')];

    #[test]
    fn a_shorthand_means_the_same_flag_in_every_verb() {
        type Meaning = (String, Option<String>, bool);
        let mut seen: BTreeMap<char, (String, Meaning)> = BTreeMap::new();
        for (path, command) in commands() {
            for arg in flags(&command).filter(|arg| arg.get_short().is_some_and(|short| "flRAno".contains(short))) {
                let short = arg.get_short().unwrap();
                if KUBECTLS_OWN_MEANINGS.contains(&(path.as_str(), short)) {
                    continue;
                }
                let long = arg.get_long().unwrap_or_default().to_string();
                let value_name = arg.get_value_names().map(|names| names.join(" "));
                let takes_value = arg.get_num_args().is_some_and(|range| range.min_values() > 0);
                let meaning = (long, value_name, takes_value);
                let (first, first_meaning) = seen.entry(short).or_insert_with(|| (path.clone(), meaning.clone()));
                assert_eq!(*first_meaning, meaning, "-{short}: {first} and {path}");
            }
        }
        assert_eq!(seen.keys().collect::<String>(), "ARflno");
    }

    #[test]
    fn every_flag_and_command_says_what_it_is_for() {
        for (path, command) in commands() {
            assert!(command.get_about().is_some(), "{path} has no about");
            for arg in flags(&command) {
                assert!(arg.get_help().is_some(), "{path} --{} has no help", arg.get_id());
            }
        }
    }

    #[test]
    fn every_verb_has_examples() {
        for (path, command) in commands().into_iter().skip(1) {
            let examples = command.get_after_help().map(ToString::to_string).unwrap_or_default();
            assert!(examples.starts_with("Examples:\n"), "{path} has no Examples");
            // Longer lines would be wrapped by clap, and no longer copied whole.
            let long = examples.lines().find(|line| line.chars().count() > 100);
            assert!(long.is_none(), "an example of {path} is too long for help: {long:?}");
        }
    }

    /// Each `kubeupd ...` command line of the text (continued lines joined), up to a pipe, a
    /// redirection or the end of a `<(...)`.
    fn example_lines(text: &str) -> Vec<Vec<String>> {
        let joined = text.replace("\\\n", " ");
        let mut lines = Vec::new();
        for line in joined.lines().map(str::trim).filter(|line| !line.starts_with('#')) {
            let words = shlex::split(line).unwrap_or_else(|| panic!("example does not split: {line}"));
            let starts = words.iter().enumerate().filter(|(_, word)| word.trim_start_matches("<(") == "kubeupd");
            for start in starts.map(|(at, _)| at) {
                let rest = words[start + 1..].iter().take_while(|word| !matches!(word.as_str(), "|" | ">" | ">>"));
                let mut line = vec!["kubeupd".to_string()];
                line.extend(rest.map(|word| word.trim_end_matches(')').to_string()));
                lines.push(line);
            }
        }
        lines
    }

    #[test]
    fn every_example_parses() {
        let mut count = 0;
        for (path, command) in commands().into_iter().skip(1) {
            let examples = command.get_after_help().map(ToString::to_string).unwrap_or_default();
            for line in example_lines(&examples) {
                let parsed = crate::cli::command().try_get_matches_from(&line);
                assert!(parsed.is_ok(), "an example of {path} does not parse: {line:?}\n{}", parsed.unwrap_err());
                count += 1;
            }
        }
        assert!(count > 60, "{count} examples");
    }

    #[test]
    fn the_root_lists_every_verb_by_kind() {
        let listed: Vec<&str> = GROUPS.iter().flat_map(|(_, verbs)| verbs.iter().copied()).collect();
        let mut verbs: Vec<String> =
            command().get_subcommands().map(|sub| sub.get_name().to_string()).filter(|name| name != "help").collect();
        verbs.sort();
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(sorted, verbs);
        let help = command().render_help().to_string();
        let deploy = help.split_once("Deploy Commands:\n").map(|(_, rest)| rest.lines().next().unwrap_or_default());
        let words: Option<Vec<&str>> = deploy.map(|line| line.split_whitespace().take(4).collect());
        assert_eq!(words, Some(vec!["rollout", "Manage", "the", "rollout"]), "{help}");
    }
}
