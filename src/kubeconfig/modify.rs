//! Which files a change goes to, as client-go's `ModifyConfig` decides (tools/clientcmd/config.go):
//! the merged config before and after the change are compared entry by entry; a changed or new
//! entry is written into the file it came from (a new one into the default file: the explicit
//! file, else the first file of `$KUBECONFIG` that exists, else its last), a removed one is removed
//! from the file it came from, and `current-context` goes to the default file (cleared in the
//! first file that sets it). Each file written is that file as read, with only those entries
//! changed, in client-go's serialization.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Config, Error, Result};

/// Where the kubeconfig files are, as kubectl's `PathOptions` finds them.
#[derive(Debug, Clone)]
pub struct Access {
    /// `--kubeconfig`.
    pub explicit: Option<PathBuf>,
    /// The files of `$KUBECONFIG`, without duplicates, in order.
    pub env_files: Vec<PathBuf>,
    /// `~/.kube/config`.
    pub global: PathBuf,
}

impl Access {
    /// `explicit` (`--kubeconfig`), the value of `$KUBECONFIG` and the home directory.
    pub fn new(explicit: Option<PathBuf>, env: Option<&std::ffi::OsStr>, home: &Path) -> Access {
        let mut env_files: Vec<PathBuf> = Vec::new();
        for path in env.map(std::env::split_paths).into_iter().flatten() {
            if !env_files.contains(&path) {
                env_files.push(path);
            }
        }
        let explicit = explicit.filter(|path| !path.as_os_str().is_empty());
        Access { explicit, env_files, global: home.join(".kube").join("config") }
    }

    pub fn is_explicit(&self) -> bool {
        self.explicit.is_some()
    }

    /// The files read, in order (`GetLoadingPrecedence`).
    pub fn precedence(&self) -> Vec<PathBuf> {
        match &self.explicit {
            Some(path) => vec![path.clone()],
            None if !self.env_files.is_empty() => self.env_files.clone(),
            None => vec![self.global.clone()],
        }
    }

    /// Where a new entry goes (`GetDefaultFilename`); `exists` tells the files there are.
    pub fn default_filename(&self, exists: impl Fn(&Path) -> bool) -> PathBuf {
        if let Some(path) = &self.explicit {
            return path.clone();
        }
        match self.env_files.as_slice() {
            [] => self.global.clone(),
            [only] => only.clone(),
            files => files.iter().find(|file| exists(file)).unwrap_or(&files[files.len() - 1]).clone(),
        }
    }
}

/// The kubeconfig files as read (`None`: the file does not exist), and the ones written since.
#[derive(Debug, Clone, Default)]
pub struct Files {
    texts: BTreeMap<PathBuf, Option<String>>,
    written: BTreeMap<PathBuf, Config>,
}

/// The text a file name gives entries as their origin (client-go keeps the name as given).
fn location(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Files {
    /// The files of `access`, each read with `read` (`None` when it does not exist).
    pub fn read(access: &Access, mut read: impl FnMut(&Path) -> Result<Option<String>>) -> Result<Files> {
        let mut texts = BTreeMap::new();
        for path in access.precedence() {
            if path.as_os_str().is_empty() {
                continue;
            }
            let text = read(&path)?;
            texts.insert(path, text);
        }
        Ok(Files { texts, written: BTreeMap::new() })
    }

    /// Files given as texts (for tests).
    pub fn from_texts(texts: impl IntoIterator<Item = (PathBuf, Option<String>)>) -> Files {
        Files { texts: texts.into_iter().collect(), written: BTreeMap::new() }
    }

    fn exists(&self, path: &Path) -> bool {
        self.written.contains_key(path) || self.texts.get(path).is_some_and(Option::is_some)
    }

    /// The file at `path` as it is now (`getConfigFromFile`): a missing one is empty.
    fn config(&self, path: &Path) -> Result<Config> {
        if let Some(config) = self.written.get(path) {
            return Ok(config.clone());
        }
        match self.texts.get(path) {
            Some(Some(text)) => super::parse(text, &location(path)).map_err(|err| loading(path, err)),
            _ => Ok(Config::default()),
        }
    }

    /// The merged config (`GetStartingConfig`): the files that exist, merged; an explicit file that
    /// does not exist reads as empty.
    pub fn starting(&self, access: &Access) -> Result<Config> {
        let mut configs = Vec::new();
        let mut errors = Vec::new();
        for path in access.precedence() {
            if let Some(Some(text)) = self.texts.get(&path) {
                match super::parse(text, &location(&path)) {
                    Ok(config) => configs.push(config),
                    Err(err) => errors.push(loading(&path, err).to_string()),
                }
            }
        }
        if !errors.is_empty() {
            return Err(Error::Invalid(aggregate(&errors)));
        }
        Ok(super::merge(configs))
    }

    fn write(&mut self, path: &Path, config: Config) {
        self.written.insert(path.to_path_buf(), config);
    }

    /// The files written, each with its new text.
    pub fn written(&self) -> Vec<(PathBuf, String)> {
        self.written.iter().map(|(path, config)| (path.clone(), super::to_file_text(config))).collect()
    }
}

/// client-go's aggregate error: one message alone, several in brackets.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        several => format!("[{}]", several.join(", ")),
    }
}

fn loading(path: &Path, err: Error) -> Error {
    Error::Invalid(format!("error loading config file \"{}\": {err}", path.display()))
}

/// Writes the difference between `starting` (as [`Files::starting`] read it) and `changed` into
/// `files`, as `clientcmd.ModifyConfig(access, changed, relativize_paths)`; `cwd` is the working
/// directory relative paths are read from.
pub fn modify(
    access: &Access,
    files: &mut Files,
    starting: &Config,
    changed: &Config,
    relativize_paths: bool,
    cwd: &Path,
) -> Result<()> {
    if starting == changed {
        return Ok(());
    }
    let default_file = |files: &Files| access.default_filename(|path| files.exists(path));
    if starting.current_context != changed.current_context {
        write_current_context(access, files, &changed.current_context, default_file(files))?;
    }
    if starting.preferences != changed.preferences {
        let file = match &access.explicit {
            Some(path) => Some(path.clone()),
            None => access
                .precedence()
                .into_iter()
                .find(|path| files.config(path).is_ok_and(|config| config.preferences != changed.preferences)),
        };
        let file = file.ok_or_else(|| Error::Other("no config found to write preferences".into()))?;
        let mut config = files.config(&file)?;
        config.preferences = changed.preferences.clone();
        files.write(&file, config);
    }
    let destination = |origin: &str, files: &Files| match origin {
        "" => default_file(files),
        origin => PathBuf::from(origin),
    };
    for (name, cluster) in &changed.clusters {
        if starting.clusters.get(name) != Some(cluster) {
            let file = destination(&cluster.location, files);
            let mut config = files.config(&file)?;
            let mut cluster = cluster.clone();
            cluster.location = location(&file);
            if relativize_paths {
                super::relativize_cluster(&mut cluster, cwd)?;
            }
            config.clusters.insert(name.clone(), cluster);
            files.write(&file, config);
        }
    }
    let mut seen: BTreeMap<PathBuf, Config> = BTreeMap::new();
    for (name, context) in &changed.contexts {
        if starting.contexts.get(name) != Some(context) {
            let file = destination(&context.location, files);
            if !seen.contains_key(&file) {
                let config = files.config(&file)?;
                seen.insert(file.clone(), config);
            }
            seen.get_mut(&file).expect("just read").contexts.insert(name.clone(), context.clone());
        }
    }
    for (file, config) in seen {
        files.write(&file, config);
    }
    for (name, user) in &changed.auth_infos {
        if starting.auth_infos.get(name) != Some(user) {
            let file = destination(&user.location, files);
            let mut config = files.config(&file)?;
            let mut user = user.clone();
            user.location = location(&file);
            if relativize_paths {
                super::relativize_user(&mut user, cwd)?;
            }
            config.auth_infos.insert(name.clone(), user);
            files.write(&file, config);
        }
    }
    for (name, cluster) in &starting.clusters {
        if !changed.clusters.contains_key(name) {
            let file = destination(&cluster.location, files);
            let mut config = files.config(&file)?;
            config.clusters.remove(name);
            files.write(&file, config);
        }
    }
    for (name, context) in &starting.contexts {
        if !changed.contexts.contains_key(name) {
            let file = destination(&context.location, files);
            let mut config = files.config(&file)?;
            config.contexts.remove(name);
            files.write(&file, config);
        }
    }
    for (name, user) in &starting.auth_infos {
        if !changed.auth_infos.contains_key(name) {
            let file = destination(&user.location, files);
            let mut config = files.config(&file)?;
            config.auth_infos.remove(name);
            files.write(&file, config);
        }
    }
    Ok(())
}

/// client-go's `writeCurrentContext`.
fn write_current_context(access: &Access, files: &mut Files, current: &str, default_file: PathBuf) -> Result<()> {
    if let Some(file) = &access.explicit {
        let mut config = files.config(file)?;
        config.current_context = current.to_string();
        files.write(file, config);
        return Ok(());
    }
    if !current.is_empty() {
        let mut config = files.config(&default_file)?;
        config.current_context = current.to_string();
        files.write(&default_file, config);
        return Ok(());
    }
    for file in access.precedence() {
        if !files.exists(&file) {
            continue;
        }
        let mut config = files.config(&file)?;
        if !config.current_context.is_empty() {
            config.current_context.clear();
            files.write(&file, config);
            return Ok(());
        }
    }
    Err(Error::Other("no config found to write context".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: &str = "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n";
    const SECOND: &str = "current-context: b\ncontexts:\n- name: b\n  context: {cluster: c2, user: u2}\n\
        clusters:\n- name: c\n  cluster: {server: 'https://c'}\n";

    fn two_files() -> (Access, Files) {
        let (first, second) = (PathBuf::from("/k/first"), PathBuf::from("/k/second"));
        let env = std::env::join_paths([&first, &second]).unwrap();
        let access = Access::new(None, Some(&env), Path::new("/home"));
        let files = Files::from_texts([(first, Some(FIRST.to_string())), (second, Some(SECOND.to_string()))]);
        (access, files)
    }

    #[test]
    fn an_entry_is_changed_in_the_file_that_holds_it_and_a_new_one_goes_to_the_first() {
        let (access, mut files) = two_files();
        let starting = files.starting(&access).unwrap();
        assert_eq!(starting.current_context, "a");
        let mut changed = starting.clone();
        changed.clusters.get_mut("c").unwrap().server = "https://new".into();
        changed.contexts.insert("new".into(), super::super::Context { cluster: "x".into(), ..Default::default() });
        modify(&access, &mut files, &starting, &changed, true, Path::new("/")).unwrap();
        let written = files.written();
        assert_eq!(written.len(), 2);
        assert_eq!(written[0].0, PathBuf::from("/k/first"));
        assert!(written[0].1.contains("name: new\n"), "{}", written[0].1);
        assert!(written[1].1.contains("server: https://new\n"), "{}", written[1].1);
        assert!(written[1].1.contains("current-context: b\n"), "{}", written[1].1);
    }

    #[test]
    fn a_cleared_current_context_is_cleared_where_it_is_set() {
        let (access, mut files) = two_files();
        let starting = files.starting(&access).unwrap();
        let changed = Config { current_context: String::new(), ..starting.clone() };
        modify(&access, &mut files, &starting, &changed, false, Path::new("/")).unwrap();
        let written = files.written();
        assert_eq!(written.len(), 1);
        assert_eq!(written[0].0, PathBuf::from("/k/first"));
        assert!(written[0].1.contains("current-context: \"\"\n"));
    }
}
