//! Kubeconfig files as kubectl's `config` commands read, change and write them (client-go's
//! `tools/clientcmd`, v0.37): each file is read into client-go's model (unknown fields dropped,
//! entries keyed by name, base64 data decoded, defaults set), changed there, and written back in
//! client-go's serialization (`clientcmd.Write`: the v1 struct as JSON turned into YAML by
//! sigs.k8s.io/yaml, so keys sorted, entries sorted by name, empty lists as `null`). Several files
//! (`$KUBECONFIG`) are merged as client-go merges them, and a change is written to the file that
//! holds the entry (see [`modify`]). Pure: files come in as text and go out as text.

pub mod modify;
pub mod property;

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use base64::Engine as _;
use serde::ser::{SerializeMap as _, SerializeSeq as _};
use serde_json::Value;

/// Why a kubeconfig cannot be read or changed, in client-go's words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Other(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// client-go's `api.Config`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub preferences: Preferences,
    pub clusters: BTreeMap<String, Cluster>,
    pub auth_infos: BTreeMap<String, AuthInfo>,
    pub contexts: BTreeMap<String, Context>,
    pub current_context: String,
    pub extensions: Extensions,
}

/// Extensions by name, each the JSON it was read as.
pub type Extensions = BTreeMap<String, Value>;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preferences {
    pub colors: bool,
    pub extensions: Extensions,
}

/// client-go's `api.Cluster`; `location` is its `LocationOfOrigin` (the file it was read from).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cluster {
    pub location: String,
    pub server: String,
    pub tls_server_name: String,
    pub insecure_skip_tls_verify: bool,
    pub certificate_authority: String,
    pub certificate_authority_data: Option<Vec<u8>>,
    pub proxy_url: String,
    pub disable_compression: bool,
    pub extensions: Extensions,
}

/// client-go's `api.AuthInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthInfo {
    pub location: String,
    pub client_certificate: String,
    pub client_certificate_data: Option<Vec<u8>>,
    pub client_key: String,
    pub client_key_data: Option<Vec<u8>>,
    pub token: String,
    pub token_file: String,
    pub impersonate: String,
    pub impersonate_uid: String,
    pub impersonate_groups: Vec<String>,
    pub impersonate_user_extra: BTreeMap<String, Vec<String>>,
    pub username: String,
    pub password: String,
    pub auth_provider: Option<AuthProvider>,
    pub exec: Option<Exec>,
    pub extensions: Extensions,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthProvider {
    pub name: String,
    /// `None` is Go's nil map, written as `null`.
    pub config: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exec {
    pub command: String,
    /// `None` is Go's nil slice (`null`), `Some(vec![])` an empty one (`[]`).
    pub args: Option<Vec<String>>,
    pub env: Option<Vec<(String, String)>>,
    pub api_version: String,
    pub install_hint: String,
    pub provide_cluster_info: bool,
    pub interactive_mode: String,
}

/// client-go's `api.Context`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
    pub location: String,
    pub cluster: String,
    pub auth_info: String,
    pub namespace: String,
    pub extensions: Extensions,
}

// ---------------------------------------------------------------------------------------------
// Reading

/// The kubeconfig `text` of the file `location`, as client-go's `LoadFromFile` reads it: empty
/// text is an empty config; every entry remembers `location`.
pub fn parse(text: &str, location: &str) -> Result<Config> {
    if text.is_empty() {
        return Ok(Config::default());
    }
    let value = crate::manifest::yaml_value(text).map_err(|err| Error::Invalid(format!("yaml: {err}")))?;
    let mut config = from_value(&value)?;
    for cluster in config.clusters.values_mut() {
        cluster.location = location.to_string();
    }
    for user in config.auth_infos.values_mut() {
        user.location = location.to_string();
    }
    for context in config.contexts.values_mut() {
        context.location = location.to_string();
    }
    Ok(config)
}

/// What Go's JSON decoder says of a value of the wrong type.
fn wrong(value: &Value, go_type: &str, field: &str) -> Error {
    let kind = match value {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    };
    Error::Invalid(format!("json: cannot unmarshal {kind} into Go struct field {field} of type {go_type}"))
}

struct Fields<'a> {
    map: Option<&'a serde_json::Map<String, Value>>,
    path: String,
}

impl<'a> Fields<'a> {
    fn of(value: &'a Value, path: &str, go_type: &str) -> Result<Fields<'a>> {
        match value {
            Value::Object(map) => Ok(Fields { map: Some(map), path: path.to_string() }),
            Value::Null => Ok(Fields { map: None, path: path.to_string() }),
            other => Err(wrong(other, go_type, path)),
        }
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|map| map.get(key)).filter(|value| !value.is_null())
    }

    fn field(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    fn string(&self, key: &str) -> Result<String> {
        match self.get(key) {
            None => Ok(String::new()),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(wrong(other, "string", &self.field(key))),
        }
    }

    fn bool(&self, key: &str) -> Result<bool> {
        match self.get(key) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(wrong(other, "bool", &self.field(key))),
        }
    }

    fn bytes(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => {
                // Go's decoder skips line breaks in base64.
                let text: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .map(Some)
                    .map_err(|err| Error::Invalid(format!("illegal base64 data in field {}: {err}", self.field(key))))
            }
            Some(other) => Err(wrong(other, "[]uint8", &self.field(key))),
        }
    }

    fn strings(&self, key: &str) -> Result<Option<Vec<String>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    Value::Null => Ok(String::new()),
                    other => Err(wrong(other, "string", &self.field(key))),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            Some(other) => Err(wrong(other, "[]string", &self.field(key))),
        }
    }

    fn string_map(&self, key: &str) -> Result<Option<BTreeMap<String, String>>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(name, value)| match value {
                    Value::String(text) => Ok((name.clone(), text.clone())),
                    Value::Null => Ok((name.clone(), String::new())),
                    other => Err(wrong(other, "string", &self.field(key))),
                })
                .collect::<Result<BTreeMap<_, _>>>()
                .map(Some),
            Some(other) => Err(wrong(other, "map[string]string", &self.field(key))),
        }
    }

    fn extensions(&self, key: &str) -> Result<Extensions> {
        let mut extensions = Extensions::new();
        for item in self.list(key, "[]v1.NamedExtension")? {
            let fields = Fields::of(item, &self.field(key), "v1.NamedExtension")?;
            let extension = fields.get("extension").cloned().unwrap_or(Value::Null);
            extensions.insert(fields.string("name")?, extension);
        }
        Ok(extensions)
    }

    fn list(&self, key: &str, go_type: &str) -> Result<&'a [Value]> {
        match self.get(key) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(wrong(other, go_type, &self.field(key))),
        }
    }
}

fn from_value(value: &Value) -> Result<Config> {
    let top = Fields::of(value, "Config", "v1.Config")?;
    let mut config = Config { current_context: top.string("current-context")?, ..Config::default() };
    if let Some(preferences) = top.get("preferences") {
        let fields = Fields::of(preferences, "Config.preferences", "v1.Preferences")?;
        config.preferences =
            Preferences { colors: fields.bool("colors")?, extensions: fields.extensions("extensions")? };
    }
    config.extensions = top.extensions("extensions")?;
    // Within a file, a later entry of a name replaces an earlier one, as client-go converts the list.
    for item in top.list("clusters", "[]v1.NamedCluster")? {
        let named = Fields::of(item, "Config.clusters", "v1.NamedCluster")?;
        let body = named.get("cluster").unwrap_or(&Value::Null);
        let fields = Fields::of(body, "Config.clusters.cluster", "v1.Cluster")?;
        let cluster = Cluster {
            location: String::new(),
            server: fields.string("server")?,
            tls_server_name: fields.string("tls-server-name")?,
            insecure_skip_tls_verify: fields.bool("insecure-skip-tls-verify")?,
            certificate_authority: fields.string("certificate-authority")?,
            certificate_authority_data: fields.bytes("certificate-authority-data")?,
            proxy_url: fields.string("proxy-url")?,
            disable_compression: fields.bool("disable-compression")?,
            extensions: fields.extensions("extensions")?,
        };
        config.clusters.insert(named.string("name")?, cluster);
    }
    for item in top.list("users", "[]v1.NamedAuthInfo")? {
        let named = Fields::of(item, "Config.users", "v1.NamedAuthInfo")?;
        let body = named.get("user").unwrap_or(&Value::Null);
        let fields = Fields::of(body, "Config.users.user", "v1.AuthInfo")?;
        let auth_provider = match fields.get("auth-provider") {
            None => None,
            Some(provider) => {
                let provider = Fields::of(provider, "Config.users.user.auth-provider", "v1.AuthProviderConfig")?;
                Some(AuthProvider { name: provider.string("name")?, config: provider.string_map("config")? })
            }
        };
        let exec = match fields.get("exec") {
            None => None,
            Some(exec) => {
                let exec = Fields::of(exec, "Config.users.user.exec", "v1.ExecConfig")?;
                let env = match exec.get("env") {
                    None => None,
                    Some(_) => Some(
                        (exec.list("env", "[]v1.ExecEnvVar")?.iter())
                            .map(|item| {
                                let var = Fields::of(item, "Config.users.user.exec.env", "v1.ExecEnvVar")?;
                                Ok((var.string("name")?, var.string("value")?))
                            })
                            .collect::<Result<Vec<_>>>()?,
                    ),
                };
                let api_version = exec.string("apiVersion")?;
                let mut interactive_mode = exec.string("interactiveMode")?;
                // client-go's default for the older exec plugin versions.
                if interactive_mode.is_empty()
                    && matches!(
                        api_version.as_str(),
                        "client.authentication.k8s.io/v1beta1" | "client.authentication.k8s.io/v1alpha1"
                    )
                {
                    interactive_mode = "IfAvailable".into();
                }
                Some(Exec {
                    command: exec.string("command")?,
                    args: exec.strings("args")?,
                    env,
                    api_version,
                    install_hint: exec.string("installHint")?,
                    provide_cluster_info: exec.bool("provideClusterInfo")?,
                    interactive_mode,
                })
            }
        };
        let extra = match fields.get("as-user-extra") {
            None => BTreeMap::new(),
            Some(Value::Object(map)) => {
                let mut extra = BTreeMap::new();
                for (key, values) in map {
                    let holder = serde_json::json!({ "v": values });
                    let values = Fields::of(&holder, "Config.users.user.as-user-extra", "")?.strings("v")?;
                    extra.insert(key.clone(), values.unwrap_or_default());
                }
                extra
            }
            Some(other) => return Err(wrong(other, "map[string][]string", "Config.users.user.as-user-extra")),
        };
        let user = AuthInfo {
            location: String::new(),
            client_certificate: fields.string("client-certificate")?,
            client_certificate_data: fields.bytes("client-certificate-data")?,
            client_key: fields.string("client-key")?,
            client_key_data: fields.bytes("client-key-data")?,
            token: fields.string("token")?,
            token_file: fields.string("tokenFile")?,
            impersonate: fields.string("as")?,
            impersonate_uid: fields.string("as-uid")?,
            impersonate_groups: fields.strings("as-groups")?.unwrap_or_default(),
            impersonate_user_extra: extra,
            username: fields.string("username")?,
            password: fields.string("password")?,
            auth_provider,
            exec,
            extensions: fields.extensions("extensions")?,
        };
        config.auth_infos.insert(named.string("name")?, user);
    }
    for item in top.list("contexts", "[]v1.NamedContext")? {
        let named = Fields::of(item, "Config.contexts", "v1.NamedContext")?;
        let body = named.get("context").unwrap_or(&Value::Null);
        let fields = Fields::of(body, "Config.contexts.context", "v1.Context")?;
        let context = Context {
            location: String::new(),
            cluster: fields.string("cluster")?,
            auth_info: fields.string("user")?,
            namespace: fields.string("namespace")?,
            extensions: fields.extensions("extensions")?,
        };
        config.contexts.insert(named.string("name")?, context);
    }
    Ok(config)
}

/// The files merged as client-go's loading rules merge them: the first file to name an entry
/// wins it whole, the first to set `current-context` (or a preference) sets it.
pub fn merge(files: Vec<Config>) -> Config {
    let mut merged = Config::default();
    for file in files {
        for (name, cluster) in file.clusters {
            merged.clusters.entry(name).or_insert(cluster);
        }
        for (name, user) in file.auth_infos {
            merged.auth_infos.entry(name).or_insert(user);
        }
        for (name, context) in file.contexts {
            merged.contexts.entry(name).or_insert(context);
        }
        for (name, extension) in file.extensions {
            merged.extensions.entry(name).or_insert(extension);
        }
        if merged.current_context.is_empty() {
            merged.current_context = file.current_context;
        }
        merged.preferences.colors |= file.preferences.colors;
        for (name, extension) in file.preferences.extensions {
            merged.preferences.extensions.entry(name).or_insert(extension);
        }
    }
    merged
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A value as Go's encoder sees it: structs keep their fields' order (JSON), maps sort their keys.
#[derive(Debug, Clone)]
enum Go {
    Null,
    Bool(bool),
    Str(String),
    List(Vec<Go>),
    Struct(Vec<(&'static str, Go)>),
    Raw(Value),
}

impl Go {
    fn to_value(&self) -> Value {
        match self {
            Go::Null => Value::Null,
            Go::Bool(flag) => Value::Bool(*flag),
            Go::Str(text) => Value::String(text.clone()),
            Go::List(items) => Value::Array(items.iter().map(Go::to_value).collect()),
            Go::Struct(fields) => {
                Value::Object(fields.iter().map(|(name, value)| (name.to_string(), value.to_value())).collect())
            }
            Go::Raw(value) => value.clone(),
        }
    }
}

impl serde::Serialize for Go {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Go::Null => serializer.serialize_unit(),
            Go::Bool(flag) => serializer.serialize_bool(*flag),
            Go::Str(text) => serializer.serialize_str(text),
            Go::List(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(item)?;
                }
                out.end()
            }
            Go::Struct(fields) => {
                let mut out = serializer.serialize_map(Some(fields.len()))?;
                for (name, value) in fields {
                    out.serialize_entry(name, value)?;
                }
                out.end()
            }
            Go::Raw(value) => value.serialize(serializer),
        }
    }
}

/// A struct's fields, with `omitempty` ones left out when empty.
#[derive(Default)]
struct Out(Vec<(&'static str, Go)>);

impl Out {
    fn always(mut self, name: &'static str, value: Go) -> Self {
        self.0.push((name, value));
        self
    }
    fn text(self, name: &'static str, text: &str) -> Self {
        if text.is_empty() { self } else { self.always(name, Go::Str(text.to_string())) }
    }
    fn flag(self, name: &'static str, flag: bool) -> Self {
        if flag { self.always(name, Go::Bool(true)) } else { self }
    }
    fn bytes(self, name: &'static str, bytes: &Option<Vec<u8>>) -> Self {
        match bytes {
            Some(bytes) if !bytes.is_empty() => self.always(name, Go::Str(encode_bytes(bytes))),
            _ => self,
        }
    }
    fn extensions(self, extensions: &Extensions) -> Self {
        if extensions.is_empty() {
            return self;
        }
        let items = extensions
            .iter()
            .map(|(name, value)| {
                Go::Struct(vec![("name", Go::Str(name.clone())), ("extension", Go::Raw(value.clone()))])
            })
            .collect();
        self.always("extensions", Go::List(items))
    }
    fn done(self) -> Go {
        Go::Struct(self.0)
    }
}

/// The bytes shown for data left out of `config view` (`DATA+OMITTED` once base64-encoded).
const DATA_OMITTED: &str = "DATA+OMITTED";

/// How Go writes a `[]byte`: base64.
fn encode_bytes(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn strings(items: &[String]) -> Go {
    Go::List(items.iter().cloned().map(Go::Str).collect())
}

fn to_go(config: &Config) -> Go {
    let named = |entries: Vec<Go>| if entries.is_empty() { Go::Null } else { Go::List(entries) };
    let clusters = config
        .clusters
        .iter()
        .map(|(name, cluster)| {
            let body = Out::default()
                .always("server", Go::Str(cluster.server.clone()))
                .text("tls-server-name", &cluster.tls_server_name)
                .flag("insecure-skip-tls-verify", cluster.insecure_skip_tls_verify)
                .text("certificate-authority", &cluster.certificate_authority)
                .bytes("certificate-authority-data", &cluster.certificate_authority_data)
                .text("proxy-url", &cluster.proxy_url)
                .flag("disable-compression", cluster.disable_compression)
                .extensions(&cluster.extensions)
                .done();
            Go::Struct(vec![("name", Go::Str(name.clone())), ("cluster", body)])
        })
        .collect();
    let users = config
        .auth_infos
        .iter()
        .map(|(name, user)| {
            let mut body = Out::default()
                .text("client-certificate", &user.client_certificate)
                .bytes("client-certificate-data", &user.client_certificate_data)
                .text("client-key", &user.client_key)
                .bytes("client-key-data", &user.client_key_data)
                .text("token", &user.token)
                .text("tokenFile", &user.token_file)
                .text("as", &user.impersonate)
                .text("as-uid", &user.impersonate_uid);
            if !user.impersonate_groups.is_empty() {
                body = body.always("as-groups", strings(&user.impersonate_groups));
            }
            if !user.impersonate_user_extra.is_empty() {
                let extra = (user.impersonate_user_extra.iter())
                    .map(|(key, values)| (key.clone(), Value::from(values.clone())))
                    .collect();
                body = body.always("as-user-extra", Go::Raw(Value::Object(extra)));
            }
            body = body.text("username", &user.username).text("password", &user.password);
            if let Some(provider) = &user.auth_provider {
                let config = match &provider.config {
                    None => Go::Null,
                    Some(config) => Go::Raw(serde_json::to_value(config).unwrap_or_default()),
                };
                body = body.always(
                    "auth-provider",
                    Go::Struct(vec![("name", Go::Str(provider.name.clone())), ("config", config)]),
                );
            }
            if let Some(exec) = &user.exec {
                let env = match &exec.env {
                    None => Go::Null,
                    Some(env) => Go::List(
                        env.iter()
                            .map(|(name, value)| {
                                Go::Struct(vec![("name", Go::Str(name.clone())), ("value", Go::Str(value.clone()))])
                            })
                            .collect(),
                    ),
                };
                let exec = Out::default()
                    .always("command", Go::Str(exec.command.clone()))
                    .always("args", exec.args.as_deref().map_or(Go::Null, strings))
                    .always("env", env)
                    .text("apiVersion", &exec.api_version)
                    .text("installHint", &exec.install_hint)
                    .always("provideClusterInfo", Go::Bool(exec.provide_cluster_info))
                    .text("interactiveMode", &exec.interactive_mode)
                    .done();
                body = body.always("exec", exec);
            }
            let body = body.extensions(&user.extensions).done();
            Go::Struct(vec![("name", Go::Str(name.clone())), ("user", body)])
        })
        .collect();
    let contexts = config
        .contexts
        .iter()
        .map(|(name, context)| {
            let body = Out::default()
                .always("cluster", Go::Str(context.cluster.clone()))
                .always("user", Go::Str(context.auth_info.clone()))
                .text("namespace", &context.namespace)
                .extensions(&context.extensions)
                .done();
            Go::Struct(vec![("name", Go::Str(name.clone())), ("context", body)])
        })
        .collect();
    let mut top = Out::default().always("kind", Go::Str("Config".into())).always("apiVersion", Go::Str("v1".into()));
    if config.preferences != Preferences::default() {
        let preferences =
            Out::default().flag("colors", config.preferences.colors).extensions(&config.preferences.extensions);
        top = top.always("preferences", preferences.done());
    }
    top.always("clusters", named(clusters))
        .always("users", named(users))
        .always("contexts", named(contexts))
        .always("current-context", Go::Str(config.current_context.clone()))
        .extensions(&config.extensions)
        .done()
}

/// The file client-go writes for `config` (`clientcmd.Write`).
pub fn to_file_text(config: &Config) -> String {
    crate::output::to_yaml(&to_value(config))
}

/// The v1 `Config` as a JSON value (keys sorted), for the YAML and template printers.
pub fn to_value(config: &Config) -> Value {
    to_go(config).to_value()
}

/// The v1 `Config` as kubectl's JSON printer writes it: fields in the struct's order.
pub fn to_json(config: &Config) -> String {
    let mut out = Vec::new();
    crate::gocompat::json::write_indented(&mut out, &to_go(config), "    ").expect("writing into memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

// ---------------------------------------------------------------------------------------------
// What `config view` does to what it shows

/// client-go's `MinifyConfig`: only the current context, its cluster and its user.
pub fn minify(config: &mut Config) -> Result<()> {
    if config.current_context.is_empty() {
        return Err(Error::Other("current-context must exist in order to minify".into()));
    }
    let Some(context) = config.contexts.get(&config.current_context).cloned() else {
        return Err(Error::Other(format!("cannot locate context {}", config.current_context)));
    };
    let mut clusters = BTreeMap::new();
    if !context.cluster.is_empty() {
        let Some(cluster) = config.clusters.get(&context.cluster) else {
            return Err(Error::Other(format!("cannot locate cluster {}", context.cluster)));
        };
        clusters.insert(context.cluster.clone(), cluster.clone());
    }
    let mut users = BTreeMap::new();
    if !context.auth_info.is_empty() {
        let Some(user) = config.auth_infos.get(&context.auth_info) else {
            return Err(Error::Other(format!("cannot locate user {}", context.auth_info)));
        };
        users.insert(context.auth_info.clone(), user.clone());
    }
    config.contexts = BTreeMap::from([(config.current_context.clone(), context)]);
    config.clusters = clusters;
    config.auth_infos = users;
    Ok(())
}

/// client-go's `RedactSecrets` then `ShortenConfig`: secrets as `REDACTED`, certificate data as
/// `DATA+OMITTED`.
pub fn redact(config: &mut Config) {
    // As client-go: the bytes whose base64 is the marker.
    let omitted = || base64::engine::general_purpose::STANDARD.decode(DATA_OMITTED).ok();
    for user in config.auth_infos.values_mut() {
        // Redacted when set at all (a secret), then shortened.
        if user.client_key_data.is_some() {
            user.client_key_data = omitted();
        }
        if user.client_certificate_data.as_ref().is_some_and(|data| !data.is_empty()) {
            user.client_certificate_data = omitted();
        }
        if !user.token.is_empty() {
            user.token = "REDACTED".into();
        }
        if !user.password.is_empty() {
            user.password = "REDACTED".into();
        }
    }
    for cluster in config.clusters.values_mut() {
        if cluster.certificate_authority_data.as_ref().is_some_and(|data| !data.is_empty()) {
            cluster.certificate_authority_data = omitted();
        }
    }
}

/// client-go's `FlattenConfig`: the files a cluster or user names read into its data fields
/// (relative paths from the directory of the file the entry came from). `read` reads a file.
pub fn flatten(config: &mut Config, cwd: &Path, read: &mut dyn FnMut(&Path) -> std::io::Result<Vec<u8>>) -> Result<()> {
    let mut inline = |path: &mut String, data: &mut Option<Vec<u8>>, location: &str| -> Result<()> {
        if path.is_empty() {
            return Ok(());
        }
        let base = absolute(cwd, Path::new(location).parent().unwrap_or(Path::new("")));
        let file = absolute(&base, Path::new(path.as_str()));
        let bytes = read(&file).map_err(|err| Error::Other(format!("open {}: {}", file.display(), go_io(&err))))?;
        *data = Some(bytes);
        path.clear();
        Ok(())
    };
    for user in config.auth_infos.values_mut() {
        let location = user.location.clone();
        inline(&mut user.client_certificate, &mut user.client_certificate_data, &location)?;
        inline(&mut user.client_key, &mut user.client_key_data, &location)?;
    }
    for cluster in config.clusters.values_mut() {
        let location = cluster.location.clone();
        inline(&mut cluster.certificate_authority, &mut cluster.certificate_authority_data, &location)?;
    }
    Ok(())
}

/// An I/O error as Go words it.
pub fn go_io(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => err.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Paths, as Go's path/filepath treats them

/// Go's `filepath.Clean`.
pub fn clean(path: &Path) -> PathBuf {
    let rooted = path.has_root();
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(last) if last != ".." => {
                    parts.pop();
                }
                _ if rooted => {}
                _ => parts.push("..".into()),
            },
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => PathBuf::from(format!("/{joined}")),
        (false, true) => PathBuf::from("."),
        (false, false) => PathBuf::from(joined),
    }
}

/// Go's `filepath.Abs` with `cwd` as the working directory (or `filepath.Join(base, path)`).
pub fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() { clean(path) } else { clean(&cwd.join(path)) }
}

/// Go's `filepath.Rel(base, target)` for two absolute, clean paths.
fn relative(base: &Path, target: &Path) -> PathBuf {
    let base: Vec<_> = base.components().collect();
    let target: Vec<_> = target.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); base.len() - common];
    parts.extend(target[common..].iter().map(|part| part.as_os_str().to_string_lossy().into_owned()));
    if parts.is_empty() { PathBuf::from(".") } else { PathBuf::from(parts.join("/")) }
}

/// client-go's `ResolvePaths` then `RelativizePathWithNoBacksteps` for the file `location`:
/// paths made relative to its directory where they are under it; others left absolute.
fn relativize(path: &mut String, location: &str, cwd: &Path) -> Result<()> {
    if path.is_empty() {
        return Ok(());
    }
    let base = absolute(cwd, Path::new(location).parent().unwrap_or(Path::new("")));
    let resolved = absolute(&base, Path::new(path.as_str()));
    let rel = relative(&base, &resolved);
    if !rel.starts_with("..") {
        *path = rel.to_string_lossy().into_owned();
    } else {
        *path = resolved.to_string_lossy().into_owned();
    }
    Ok(())
}

/// client-go's `RelativizeClusterLocalPaths`.
pub fn relativize_cluster(cluster: &mut Cluster, cwd: &Path) -> Result<()> {
    if cluster.location.is_empty() {
        return Err(Error::Other(format!("no location of origin for {}", cluster.server)));
    }
    let location = cluster.location.clone();
    relativize(&mut cluster.certificate_authority, &location, cwd)
}

/// client-go's `RelativizeAuthInfoLocalPaths`.
pub fn relativize_user(user: &mut AuthInfo, cwd: &Path) -> Result<()> {
    if user.location.is_empty() {
        return Err(Error::Other("no location of origin for auth info".into()));
    }
    let location = user.location.clone();
    relativize(&mut user.client_certificate, &location, cwd)?;
    relativize(&mut user.client_key, &location, cwd)?;
    relativize(&mut user.token_file, &location, cwd)?;
    if let Some(exec) = &mut user.exec
        && exec.command.contains('/')
    {
        relativize(&mut exec.command, &location, cwd)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# a comment\napiVersion: v1\nkind: Config\ncurrent-context: a\nunknown: 1\n\
        clusters:\n- name: z\n  cluster: {server: 'https://z', insecure-skip-tls-verify: false}\n\
        - name: b\n  cluster: {server: 'https://b', certificate-authority-data: Q0EK}\n\
        contexts:\n- name: a\n  context: {cluster: b, user: u, namespace: ns}\n\
        users:\n- name: u\n  user:\n    token: t\n    exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1}\n";

    #[test]
    fn a_file_is_written_back_as_client_go_writes_it() {
        let config = parse(FILE, "/k/config").unwrap();
        assert_eq!(config.clusters["b"].location, "/k/config");
        assert_eq!(
            to_file_text(&config),
            "apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: Q0EK\n    server: https://b\n  name: b\n\
             - cluster:\n    server: https://z\n  name: z\ncontexts:\n- context:\n    cluster: b\n    namespace: ns\n    user: u\n  name: a\n\
             current-context: a\nkind: Config\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n\
             \x20     args: null\n      command: aws\n      env: null\n      interactiveMode: IfAvailable\n      provideClusterInfo: false\n\
             \x20   token: t\n"
        );
        assert_eq!(
            to_file_text(&Config::default()),
            "apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: \"\"\nkind: Config\nusers: null\n"
        );
    }

    #[test]
    fn view_redacts_secrets_and_minifies() {
        let mut config = parse(FILE, "/k/config").unwrap();
        minify(&mut config).unwrap();
        redact(&mut config);
        assert_eq!(config.clusters.keys().collect::<Vec<_>>(), ["b"]);
        let value = to_value(&config);
        assert_eq!(value["clusters"][0]["cluster"]["certificate-authority-data"], "DATA+OMITTED");
        assert_eq!(value["users"][0]["user"]["token"], "REDACTED");
        assert!(to_json(&config).starts_with("{\n    \"kind\": \"Config\",\n    \"apiVersion\": \"v1\",\n"));
    }

    #[test]
    fn paths_are_relativized_as_client_go_does() {
        let cwd = Path::new("/work");
        let mut path = "/k/sub/ca.crt".to_string();
        relativize(&mut path, "/k/config", cwd).unwrap();
        assert_eq!(path, "sub/ca.crt");
        let mut path = "../ca.crt".to_string();
        relativize(&mut path, "/k/config", cwd).unwrap();
        assert_eq!(path, "/ca.crt");
        let mut path = "./ca.crt".to_string();
        relativize(&mut path, "config", cwd).unwrap();
        assert_eq!(path, "ca.crt");
        assert_eq!(clean(Path::new("a/../../b")), PathBuf::from("../b"));
    }
}
