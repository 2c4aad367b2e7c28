//! Reading and writing objects of any resource type as JSON.

use bytes::Bytes;
use http::{Method, Request, header};
use serde_json::{Value, json};

use super::Cluster;
use super::error::{Error, Result};
use super::resource::ResourceType;
use super::watch::Selectors;
use crate::merge::{Patch, PatchType};

/// The `Accept` header that asks for a server-printed Table, falling back to plain JSON.
pub(super) const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

/// Which objects a list covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListScope<'a> {
    /// One namespace (ignored for cluster-scoped types).
    Namespace(&'a str),
    /// Every namespace.
    AllNamespaces,
}

/// What the server does with fields its schema does not declare (`fieldValidation`, honoured by
/// Kubernetes 1.25 and later; older servers ignore it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// Refuse the write.
    #[default]
    Strict,
    /// Accept it, with a warning.
    Warn,
    /// Drop the fields silently.
    Ignore,
}

impl FieldValidation {
    fn query_value(self) -> &'static str {
        match self {
            FieldValidation::Strict => "Strict",
            FieldValidation::Warn => "Warn",
            FieldValidation::Ignore => "Ignore",
        }
    }
}

/// Options of a write: create, replace, patch or delete.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Let the server validate and answer without persisting (`dryRun=All`).
    pub dry_run: bool,
    /// The field manager recorded in `managedFields`.
    pub field_manager: Option<String>,
    /// Take ownership of conflicting fields (server-side apply only).
    pub force: bool,
    /// Write a subresource such as `status` or `scale` instead of the object.
    pub subresource: Option<String>,
    /// Ask the server to check fields (not sent with deletes).
    pub field_validation: Option<FieldValidation>,
}

/// The manager of a write that names none: kubectl's, as the server derives it from kubectl's
/// User-Agent (`kubectl/v1.37.1 ...`), so that what kubeupd writes where kubectl names no manager
/// (`rollout undo`, `apply set-last-applied`, ...) has kubectl's field ownership, not `kubeupd`'s.
const DEFAULT_FIELD_MANAGER: &str = "kubectl";

impl WriteOptions {
    fn query(&self, patch_type: Option<PatchType>) -> Vec<(&'static str, String)> {
        let mut query = Vec::new();
        if self.dry_run {
            query.push(("dryRun", "All".to_string()));
        }
        let manager = self.field_manager.as_deref().unwrap_or(DEFAULT_FIELD_MANAGER);
        query.push(("fieldManager", manager.to_string()));
        if self.force && patch_type == Some(PatchType::Apply) {
            query.push(("force", "true".to_string()));
        }
        if let Some(validation) = self.field_validation {
            query.push(("fieldValidation", validation.query_value().to_string()));
        }
        query
    }
}

/// What happens to an object's dependents when it is deleted (`propagationPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// The object goes at once; the garbage collector deletes the dependents after.
    Background,
    /// The object stays (with a finalizer) until its dependents are deleted.
    Foreground,
    /// The dependents stay, without owner.
    Orphan,
}

impl Propagation {
    fn as_str(self) -> &'static str {
        match self {
            Propagation::Background => "Background",
            Propagation::Foreground => "Foreground",
            Propagation::Orphan => "Orphan",
        }
    }
}

/// The options of one delete, sent as its `DeleteOptions` body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteParams {
    /// Seconds the object gets to end gracefully; `None`: the kind's default.
    pub grace_period: Option<i64>,
    pub propagation: Option<Propagation>,
    /// Let the server check the delete without carrying it out (`dryRun=All`).
    pub dry_run: bool,
}

impl DeleteParams {
    /// The body, with `preconditions` (uid, resourceVersion) when the delete must find the object
    /// as it was read.
    fn body(&self, preconditions: Option<Value>) -> Value {
        let mut body = serde_json::Map::new();
        if let Some(preconditions) = preconditions {
            body.insert("preconditions".into(), preconditions);
        }
        if let Some(seconds) = self.grace_period {
            body.insert("gracePeriodSeconds".into(), seconds.into());
        }
        if let Some(propagation) = self.propagation {
            body.insert("propagationPolicy".into(), propagation.as_str().into());
        }
        // The body's options replace the query's: a dry run must be said here.
        if self.dry_run {
            body.insert("dryRun".into(), json!(["All"]));
        }
        Value::Object(body)
    }
}

/// The URL path of an object (`name` given) or of a collection, with an optional subresource.
/// `namespace` is left out for cluster-scoped types; `None` on a namespaced type means all namespaces.
pub(crate) fn resource_path(
    rt: &ResourceType,
    namespace: Option<&str>,
    name: Option<&str>,
    subresource: Option<&str>,
) -> String {
    let mut path =
        if rt.group.is_empty() { format!("/api/{}", rt.version) } else { format!("/apis/{}/{}", rt.group, rt.version) };
    if let (true, Some(namespace)) = (rt.namespaced, namespace) {
        path.push_str("/namespaces/");
        path.push_str(namespace);
    }
    path.push('/');
    path.push_str(&rt.resource);
    for segment in [name, subresource].into_iter().flatten() {
        path.push('/');
        path.push_str(segment);
    }
    path
}

pub(super) fn with_query(path: String, query: &[(&str, String)]) -> String {
    if query.is_empty() {
        return path;
    }
    let mut encoded = form_urlencoded::Serializer::new(String::new());
    for (key, value) in query {
        encoded.append_pair(key, value);
    }
    format!("{path}?{}", encoded.finish())
}

pub(super) fn scope_namespace(scope: ListScope<'_>) -> Option<&str> {
    match scope {
        ListScope::Namespace(namespace) => Some(namespace),
        ListScope::AllNamespaces => None,
    }
}

impl Cluster {
    /// Reads one object. `namespace` is ignored for cluster-scoped types.
    pub async fn get(&self, rt: &ResourceType, namespace: Option<&str>, name: &str) -> Result<Value> {
        self.get_subresource(rt, namespace, name, None).await
    }

    /// Reads a subresource of one object, such as `scale`, or the object itself when `None`.
    pub async fn get_subresource(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        subresource: Option<&str>,
    ) -> Result<Value> {
        let path = resource_path(rt, namespace, Some(name), subresource);
        self.call_json(Method::GET, path, "application/json", None).await
    }

    /// Lists the objects `selectors` select; returns the server's list object.
    pub async fn list(&self, rt: &ResourceType, scope: ListScope<'_>, selectors: Selectors<'_>) -> Result<Value> {
        let path = with_query(resource_path(rt, scope_namespace(scope), None, None), &selectors.query());
        self.call_json(Method::GET, path, "application/json", None).await
    }

    /// One page of the list: at most `limit` objects, from where `continue_token` (the previous
    /// page's `metadata.continue`) says, so a long list is never held whole in memory.
    pub async fn list_page(
        &self,
        rt: &ResourceType,
        scope: ListScope<'_>,
        selectors: Selectors<'_>,
        limit: u32,
        continue_token: Option<&str>,
    ) -> Result<Value> {
        let mut query = selectors.query();
        query.push(("limit", limit.to_string()));
        query.extend(continue_token.map(|token| ("continue", token.to_string())));
        let path = with_query(resource_path(rt, scope_namespace(scope), None, None), &query);
        self.call_json(Method::GET, path, "application/json", None).await
    }

    /// The server-printed `meta.k8s.io/v1` Table of one object (or of its `subresource`), as the
    /// server sent it; with `whole_objects`, each row carries the whole object rather than its
    /// metadata.
    pub async fn get_table(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        subresource: Option<&str>,
        whole_objects: bool,
    ) -> Result<Value> {
        let path = with_query(resource_path(rt, namespace, Some(name), subresource), &include_object(whole_objects));
        self.call_table(path).await
    }

    /// The server-printed `meta.k8s.io/v1` Table of a list, as the server sent it (see [`Self::get_table`]).
    pub async fn list_table(
        &self,
        rt: &ResourceType,
        scope: ListScope<'_>,
        selectors: Selectors<'_>,
        whole_objects: bool,
    ) -> Result<Value> {
        let mut query = selectors.query();
        query.extend(include_object(whole_objects));
        let path = with_query(resource_path(rt, scope_namespace(scope), None, None), &query);
        self.call_table(path).await
    }

    /// Creates `object` in `namespace`; returns the object as the server stored it.
    pub async fn create(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        object: &Value,
        options: &WriteOptions,
    ) -> Result<Value> {
        let path = resource_path(rt, namespace, None, options.subresource.as_deref());
        let path = with_query(path, &options.query(None));
        let generated = object["metadata"]["name"].as_str().is_none_or(str::is_empty)
            && options.subresource.is_none()
            && object["metadata"]["generateName"].as_str().is_some_and(|prefix| !prefix.is_empty());
        let mut object = std::borrow::Cow::Borrowed(object);
        // A name picked here, as the server would pick it, so that a create whose answer is lost
        // can be read back by its name: never two objects. A name taken already (one in 14
        // million) is picked again, as the server does, unless an earlier attempt's answer was
        // lost (then the object there may be this create's own).
        for attempt in 1.. {
            if generated {
                let prefix = object["metadata"]["generateName"].as_str().unwrap_or_default().to_string();
                object.to_mut()["metadata"]["name"] = Value::String(generate_name(&prefix));
            }
            let name = object["metadata"]["name"].as_str().filter(|name| !name.is_empty());
            let body = serde_json::to_vec(&object).expect("a JSON value always serializes");
            let (answer, lost) = match (name, &options.subresource) {
                (Some(name), None) => {
                    let object_path = resource_path(rt, namespace, Some(name), None);
                    let request = json_request(Method::POST, &path, "application/json", Some(body))?;
                    self.transport.send_create(request, object_path).await
                }
                _ => return self.call_json(Method::POST, path, "application/json", Some(body)).await,
            };
            match answer {
                Err(Error::AlreadyExists(_)) if generated && !lost && attempt < 3 => continue,
                answer => {
                    let response = answer?;
                    return super::json::decode(&response)
                        .map_err(|err| Error::InvalidResponse { path, reason: format!("invalid JSON: {err}") });
                }
            }
        }
        unreachable!("the loop returns")
    }

    /// POSTs `body` to the `subresource` of the object `name` (a service account's `token`);
    /// returns the server's answer.
    pub async fn create_subresource(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        subresource: &str,
        body: &Value,
    ) -> Result<Value> {
        let path = resource_path(rt, namespace, Some(name), Some(subresource));
        let body = serde_json::to_vec(body).expect("a JSON value always serializes");
        self.call_json(Method::POST, path, "application/json", Some(body)).await
    }

    /// Replaces the object `name` with `object` (a PUT: its `resourceVersion` guards against races).
    pub async fn replace(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        object: &Value,
        options: &WriteOptions,
    ) -> Result<Value> {
        let path = resource_path(rt, namespace, Some(name), options.subresource.as_deref());
        let body = serde_json::to_vec(object).expect("a JSON value always serializes");
        let path = with_query(path, &options.query(None));
        self.call_json(Method::PUT, path, "application/json", Some(body)).await
    }

    /// Sends `patch`; returns the patched object.
    pub async fn patch(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        patch: &Patch,
        options: &WriteOptions,
    ) -> Result<Value> {
        let patch_type = patch.patch_type();
        let path = resource_path(rt, namespace, Some(name), options.subresource.as_deref());
        let path = with_query(path, &options.query(Some(patch_type)));
        self.call_json(Method::PATCH, path, patch_type.content_type(), Some(patch.body())).await
    }

    /// Deletes the object `name`; returns what the server answers (the object or a Status).
    pub async fn delete(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        options: &WriteOptions,
    ) -> Result<Value> {
        self.call_json(Method::DELETE, delete_path(rt, namespace, name, options), "application/json", None).await
    }

    /// Deletes the object `name` with `params`; returns what the server answers: the object (when
    /// it stays for finalizers or a grace period) or a Status.
    pub async fn delete_with(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        params: &DeleteParams,
    ) -> Result<Value> {
        let body = serde_json::to_vec(&params.body(None)).expect("a JSON value always serializes");
        let path = resource_path(rt, namespace, Some(name), None);
        self.call_json(Method::DELETE, path, "application/json", Some(body)).await
    }

    /// Deletes `object` as it was read: if it changed since (another `resourceVersion`), or is
    /// another object of the same name (another `uid`), the server refuses (409 Conflict) and
    /// nothing is deleted.
    pub async fn delete_exactly(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        object: &Value,
        options: &WriteOptions,
        deletion: &DeleteParams,
    ) -> Result<Value> {
        let metadata = &object["metadata"];
        let name = metadata["name"].as_str().unwrap_or_default();
        let path = delete_path(rt, namespace, name, options);
        let preconditions = json!({"uid": metadata["uid"], "resourceVersion": metadata["resourceVersion"]});
        let body = serde_json::to_vec(&deletion.body(Some(preconditions))).expect("a JSON value always serializes");
        self.call_json(Method::DELETE, path, "application/json", Some(body)).await
    }

    /// Sends `body` (if any) to `path` as it is and returns the answer's bytes as they are:
    /// kubectl's `--raw`.
    pub async fn raw(&self, method: Method, path: &str, body: Option<Vec<u8>>) -> Result<Bytes> {
        let mut request = Request::builder().method(method).uri(path);
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        let request = request
            .body(body.unwrap_or_default())
            .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })?;
        self.transport.send(request).await
    }

    async fn call_json(
        &self,
        method: Method,
        path: String,
        content_type: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Value> {
        let request = json_request(method, &path, content_type, body)?;
        let response = self.transport.send(request).await?;
        super::json::decode(&response)
            .map_err(|err| Error::InvalidResponse { path, reason: format!("invalid JSON: {err}") })
    }

    async fn call_table(&self, path: String) -> Result<Value> {
        let request = Request::get(&path)
            .header(header::ACCEPT, TABLE_ACCEPT)
            .body(Vec::new())
            .map_err(|err| Error::InvalidRequest { path: path.clone(), reason: err.to_string() })?;
        let response = self.transport.send(request).await?;
        let document: Value = super::json::decode(&response)
            .map_err(|err| Error::InvalidResponse { path: path.clone(), reason: format!("invalid JSON: {err}") })?;
        if document.get("kind").and_then(Value::as_str) != Some("Table") {
            return Err(Error::InvalidResponse { path, reason: "the server did not print a table".into() });
        }
        Ok(document)
    }
}

/// A request to `path` that accepts JSON, with `body` of `content_type`.
fn json_request(method: Method, path: &str, content_type: &str, body: Option<Vec<u8>>) -> Result<Request<Vec<u8>>> {
    let mut request = Request::builder().method(method).uri(path).header(header::ACCEPT, "application/json");
    if body.is_some() {
        request = request.header(header::CONTENT_TYPE, content_type);
    }
    request
        .body(body.unwrap_or_default())
        .map_err(|err| Error::InvalidRequest { path: path.to_string(), reason: err.to_string() })
}

/// A name for an object with `generateName: prefix`, as the apiserver makes one: the prefix, cut
/// to 58 characters, and five random characters from its alphabet (no vowels, no look-alikes).
fn generate_name(prefix: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut cut = prefix.len().min(58);
    while !prefix.is_char_boundary(cut) {
        cut -= 1;
    }
    let suffix: String = (0..5).map(|_| ALPHABET[fastrand::usize(..ALPHABET.len())] as char).collect();
    format!("{}{suffix}", &prefix[..cut])
}

/// `includeObject=Object` when a table's rows must carry whole objects (for `--sort-by`).
fn include_object(whole_objects: bool) -> Vec<(&'static str, String)> {
    if whole_objects { vec![("includeObject", "Object".to_string())] } else { Vec::new() }
}

/// The path of a DELETE: a delete checks no fields, so `fieldValidation` is left out.
fn delete_path(rt: &ResourceType, namespace: Option<&str>, name: &str, options: &WriteOptions) -> String {
    let options = WriteOptions { field_validation: None, ..options.clone() };
    with_query(resource_path(rt, namespace, Some(name), None), &options.query(None))
}

#[cfg(test)]
mod tests {
    #[test]
    fn generated_names_are_the_servers_shape() {
        let name = super::generate_name("web-");
        assert_eq!(name.len(), 9);
        assert!(name.starts_with("web-") && name[4..].bytes().all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)));
        assert_eq!(super::generate_name(&"a".repeat(70)).len(), 63);
    }

    use super::super::resource::fixture;
    use super::*;

    #[test]
    fn paths_for_core_group_and_cluster_scoped_types() {
        let configmaps = fixture("", "v1", "configmaps", "ConfigMap", true);
        let deployments = fixture("apps", "v1", "deployments", "Deployment", true);
        let roles = fixture("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false);
        assert_eq!(resource_path(&configmaps, Some("ns"), Some("x"), None), "/api/v1/namespaces/ns/configmaps/x");
        assert_eq!(resource_path(&configmaps, None, None, None), "/api/v1/configmaps");
        assert_eq!(
            resource_path(&deployments, Some("ns"), Some("web"), Some("scale")),
            "/apis/apps/v1/namespaces/ns/deployments/web/scale"
        );
        assert_eq!(resource_path(&deployments, Some("ns"), None, None), "/apis/apps/v1/namespaces/ns/deployments");
        assert_eq!(
            resource_path(&roles, Some("ignored"), Some("admin"), None),
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin"
        );
    }

    #[test]
    fn queries_are_encoded() {
        let query = Selectors { label: Some("app in (a,b),tier!=x"), field: Some("metadata.name=web") }.query();
        assert_eq!(
            with_query("/api/v1/pods".into(), &query),
            "/api/v1/pods?labelSelector=app+in+%28a%2Cb%29%2Ctier%21%3Dx&fieldSelector=metadata.name%3Dweb"
        );
        assert_eq!(with_query("/api/v1/pods".into(), &[]), "/api/v1/pods");
    }

    #[test]
    fn write_options_become_query_parameters() {
        let options = WriteOptions {
            dry_run: true,
            field_manager: Some("kubeupd".into()),
            force: true,
            subresource: None,
            field_validation: Some(FieldValidation::Strict),
        };
        assert_eq!(
            options.query(Some(PatchType::Apply)),
            [
                ("dryRun", "All".to_string()),
                ("fieldManager", "kubeupd".to_string()),
                ("force", "true".to_string()),
                ("fieldValidation", "Strict".to_string())
            ]
        );
        assert_eq!(options.query(Some(PatchType::Strategic)).len(), 3);
        // No manager named: kubectl's, as the server would derive it from kubectl's User-Agent.
        let unnamed = WriteOptions::default().query(Some(PatchType::Json));
        assert_eq!(unnamed, [("fieldManager", "kubectl".to_string())]);
    }
}
