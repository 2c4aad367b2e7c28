//! `config set` and `config unset`: a dotted property path (`clusters.NAME.server`) walked over
//! client-go's model as kubectl walks it (pkg/cmd/config/navigation_step_parser.go, set.go): a
//! map key runs up to the next word that is a field of the entry's type, so names may hold dots.

use base64::Engine as _;

use super::{AuthInfo, Cluster, Config, Context, Error, Result};

/// What to do at the end of the path.
#[derive(Debug, Clone, Copy)]
pub enum Action<'a> {
    /// Set the value; `raw_bytes`: a `[]byte` field takes the text as it is, not base64.
    Set {
        value: &'a str,
        raw_bytes: bool,
    },
    Unset,
}

/// The JSON names of the fields of client-go's internal types, in their order (`-` is
/// `LocationOfOrigin`).
const CLUSTER_FIELDS: &[&str] = &[
    "-",
    "server",
    "tls-server-name",
    "insecure-skip-tls-verify",
    "certificate-authority",
    "certificate-authority-data",
    "proxy-url",
    "disable-compression",
    "extensions",
];
const USER_FIELDS: &[&str] = &[
    "-",
    "client-certificate",
    "client-certificate-data",
    "client-key",
    "client-key-data",
    "token",
    "tokenFile",
    "as",
    "as-uid",
    "as-groups",
    "as-user-extra",
    "username",
    "password",
    "auth-provider",
    "exec",
    "extensions",
];
const CONTEXT_FIELDS: &[&str] = &["-", "cluster", "user", "namespace", "extensions"];

/// A field's Go type, for what may be done to it.
enum Slot<'a> {
    Text(&'a mut String),
    Flag(&'a mut bool),
    Bytes(&'a mut Option<Vec<u8>>),
    /// Cleared already (`unset` of a list, a map or an object).
    Cleared,
}

/// The map key at the start of `parts`: up to (not including) the next part after the first
/// that names a field of the entry's type (`findNameStep`).
fn name_step(parts: &[&str], fields: &[&str]) -> (String, usize) {
    let count = parts.iter().skip(1).position(|part| fields.contains(part)).map_or(parts.len(), |at| at + 1);
    (parts[..count].join("."), count)
}

/// Changes `config` at `path` as `kubectl config set|unset PATH [VALUE]` does.
pub fn change(config: &mut Config, path: &str, action: Action) -> Result<()> {
    let parts: Vec<&str> = path.split('.').collect();
    let unset = matches!(action, Action::Unset);
    let rest = &parts[1..];
    let unparsable = || Error::Other(format!("unable to parse one or more field values of {path}"));
    match parts[0] {
        "current-context" => {
            if !rest.is_empty() {
                return Err(unparsable());
            }
            apply(Slot::Text(&mut config.current_context), action)
        }
        "preferences" => match rest {
            [] if unset => {
                config.preferences = Default::default();
                Ok(())
            }
            [] => Err(Error::Other(format!(
                "unable to locate path {{stepValue:\"\", stepType:reflect.Type(nil)}} under {path}"
            ))),
            ["colors"] => apply(Slot::Flag(&mut config.preferences.colors), action),
            ["colors", ..] => Err(unparsable()),
            ["extensions", ..] => Err(Error::Other("runtime.Object is not of type struct".into())),
            _ => Err(Error::Other(format!(
                "unable to parse {path} after [{{preferences api.Preferences}}] at api.Preferences"
            ))),
        },
        "extensions" => match rest {
            [] if unset => {
                config.extensions.clear();
                Ok(())
            }
            [] => Err(Error::Other("can't set a map to a value: map[]".into())),
            _ => Err(Error::Other("runtime.Object is not of type struct".into())),
        },
        "clusters" => entries(&mut config.clusters, rest, action, path, CLUSTER_FIELDS, "Cluster", cluster_field),
        "users" => entries(&mut config.auth_infos, rest, action, path, USER_FIELDS, "AuthInfo", user_field),
        "contexts" => entries(&mut config.contexts, rest, action, path, CONTEXT_FIELDS, "Context", context_field),
        _ => Err(Error::Other(format!("unable to parse {path} after [] at api.Config"))),
    }
}

/// The field `after[0]` (and on) of an entry; with `unset` and nothing after it, a field that is
/// no scalar is cleared there.
type FieldOf<T> = for<'a> fn(&'a mut T, &[&str], &str, bool) -> Result<Slot<'a>, Error>;

fn entries<T: Default>(
    map: &mut std::collections::BTreeMap<String, T>,
    rest: &[&str],
    action: Action,
    path: &str,
    fields: &[&str],
    type_name: &str,
    field_of: FieldOf<T>,
) -> Result<()> {
    let unset = matches!(action, Action::Unset);
    if rest.is_empty() {
        if unset {
            map.clear();
            return Ok(());
        }
        return Err(Error::Other("can't set a map to a value: map[...]".into()));
    }
    let (name, used) = name_step(rest, fields);
    let after = &rest[used..];
    if after.is_empty() {
        if unset {
            map.remove(&name);
            return Ok(());
        }
        return Err(Error::Other("can't set a map to a value: map[...]".into()));
    }
    if let Some(field) = after.first().filter(|field| !fields.contains(field)) {
        let _ = field;
        return Err(Error::Other(format!("unable to parse {path} after [...] at api.{type_name}")));
    }
    if !map.contains_key(&name) {
        if unset {
            return Err(Error::Other(format!("current map key `{name}` is invalid")));
        }
        map.insert(name.clone(), T::default());
    }
    let entry = map.get_mut(&name).expect("present");
    let slot = field_of(entry, after, path, unset && after.len() == 1)?;
    apply(slot, action)
}

fn apply(slot: Slot, action: Action) -> Result<()> {
    match (slot, action) {
        (Slot::Text(text), Action::Set { value, .. }) => *text = value.to_string(),
        (Slot::Text(text), Action::Unset) => text.clear(),
        (Slot::Flag(flag), Action::Set { value, .. }) => {
            *flag = match value {
                "" => false,
                _ => crate::gocompat::strconv::parse_bool(value).map_err(|err| Error::Other(err.to_string()))?,
            }
        }
        (Slot::Flag(flag), Action::Unset) => *flag = false,
        (Slot::Bytes(bytes), Action::Set { value, raw_bytes: true }) => *bytes = Some(value.as_bytes().to_vec()),
        (Slot::Bytes(bytes), Action::Set { value, raw_bytes: false }) => {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(value)
                .map_err(|err| Error::Other(format!("error decoding input value: {err}")))?;
            *bytes = Some(decoded);
        }
        (Slot::Bytes(bytes), Action::Unset) => *bytes = None,
        (Slot::Cleared, _) => {}
    }
    Ok(())
}

fn scalar<'a>(slot: Slot<'a>, after: &[&str], path: &str) -> Result<Slot<'a>> {
    if after.len() > 1 {
        return Err(Error::Other(format!("unable to parse one or more field values of {path}")));
    }
    Ok(slot)
}

fn cluster_field<'a>(cluster: &'a mut Cluster, after: &[&str], path: &str, clear: bool) -> Result<Slot<'a>> {
    let slot = match after[0] {
        "extensions" if clear => {
            cluster.extensions.clear();
            Slot::Cleared
        }
        "server" => Slot::Text(&mut cluster.server),
        "tls-server-name" => Slot::Text(&mut cluster.tls_server_name),
        "insecure-skip-tls-verify" => Slot::Flag(&mut cluster.insecure_skip_tls_verify),
        "certificate-authority" => Slot::Text(&mut cluster.certificate_authority),
        "certificate-authority-data" => Slot::Bytes(&mut cluster.certificate_authority_data),
        "proxy-url" => Slot::Text(&mut cluster.proxy_url),
        "disable-compression" => Slot::Flag(&mut cluster.disable_compression),
        _ => return Err(not_supported(path)),
    };
    scalar(slot, after, path)
}

fn user_field<'a>(user: &'a mut AuthInfo, after: &[&str], path: &str, clear: bool) -> Result<Slot<'a>> {
    if clear {
        let cleared = match after[0] {
            "exec" => {
                user.exec = None;
                true
            }
            "auth-provider" => {
                user.auth_provider = None;
                true
            }
            "as-groups" => {
                user.impersonate_groups.clear();
                true
            }
            "as-user-extra" => {
                user.impersonate_user_extra.clear();
                true
            }
            "extensions" => {
                user.extensions.clear();
                true
            }
            _ => false,
        };
        if cleared {
            return Ok(Slot::Cleared);
        }
    }
    let slot = match after[0] {
        "client-certificate" => Slot::Text(&mut user.client_certificate),
        "client-certificate-data" => Slot::Bytes(&mut user.client_certificate_data),
        "client-key" => Slot::Text(&mut user.client_key),
        "client-key-data" => Slot::Bytes(&mut user.client_key_data),
        "token" => Slot::Text(&mut user.token),
        "tokenFile" => Slot::Text(&mut user.token_file),
        "as" => Slot::Text(&mut user.impersonate),
        "as-uid" => Slot::Text(&mut user.impersonate_uid),
        "username" => Slot::Text(&mut user.username),
        "password" => Slot::Text(&mut user.password),
        "exec" => {
            let Some(exec) = user.exec.as_mut() else { return Err(not_supported(path)) };
            let slot = match after[1] {
                "command" => Slot::Text(&mut exec.command),
                "apiVersion" => Slot::Text(&mut exec.api_version),
                "installHint" => Slot::Text(&mut exec.install_hint),
                "interactiveMode" => Slot::Text(&mut exec.interactive_mode),
                "provideClusterInfo" => Slot::Flag(&mut exec.provide_cluster_info),
                _ => return Err(not_supported(path)),
            };
            return scalar(slot, &after[1..], path);
        }
        "auth-provider" => {
            let Some(provider) = user.auth_provider.as_mut() else { return Err(not_supported(path)) };
            match after[1] {
                "name" => return scalar(Slot::Text(&mut provider.name), &after[1..], path),
                _ => return Err(not_supported(path)),
            }
        }
        _ => return Err(not_supported(path)),
    };
    scalar(slot, after, path)
}

fn context_field<'a>(context: &'a mut Context, after: &[&str], path: &str, clear: bool) -> Result<Slot<'a>> {
    let slot = match after[0] {
        "extensions" if clear => {
            context.extensions.clear();
            Slot::Cleared
        }
        "cluster" => Slot::Text(&mut context.cluster),
        "user" => Slot::Text(&mut context.auth_info),
        "namespace" => Slot::Text(&mut context.namespace),
        _ => return Err(not_supported(path)),
    };
    scalar(slot, after, path)
}

/// A path kubectl walks through reflection into a list, a map or an object kubeupd does not
/// change this way (kubectl fails on most of them too).
fn not_supported(path: &str) -> Error {
    Error::Other(format!("kubeupd cannot set or unset {path}: only text, boolean and data fields are"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        super::super::parse(
            "clusters:\n- name: a.b.c\n  cluster: {server: s}\nusers:\n- name: u\n  user: {token: t}\n",
            "f",
        )
        .unwrap()
    }

    #[test]
    fn names_with_dots_run_to_the_next_field() {
        let mut config = config();
        let set = |value| Action::Set { value, raw_bytes: false };
        change(&mut config, "clusters.a.b.c.server", set("https://x")).unwrap();
        assert_eq!(config.clusters["a.b.c"].server, "https://x");
        change(&mut config, "clusters.a.b.c.insecure-skip-tls-verify", set("true")).unwrap();
        assert!(config.clusters["a.b.c"].insecure_skip_tls_verify);
        change(&mut config, "clusters.a.b.c.certificate-authority-data", set("Q0EK")).unwrap();
        assert_eq!(config.clusters["a.b.c"].certificate_authority_data.as_deref(), Some(&b"CA\n"[..]));
        change(&mut config, "contexts.new.namespace", set("n")).unwrap();
        assert_eq!(config.contexts["new"].namespace, "n");
        change(&mut config, "users.u.token", Action::Unset).unwrap();
        assert_eq!(config.auth_infos["u"].token, "");
        change(&mut config, "users.u", Action::Unset).unwrap();
        assert!(config.auth_infos.is_empty());
        let err = change(&mut config, "users.nope.token", Action::Unset).unwrap_err();
        assert_eq!(err.to_string(), "current map key `nope` is invalid");
        let err = change(&mut config, "current-context.x", set("y")).unwrap_err();
        assert_eq!(err.to_string(), "unable to parse one or more field values of current-context.x");
    }
}
