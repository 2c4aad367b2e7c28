//! The command line itself, without a cluster: shell completion and usage errors (kubectl's
//! recorded in `testdata/golden/usage-errors.json` and `nothing-named.json`), and the command
//! line's edges (`command-line-edges.json`).

use std::path::Path;
use std::process::Command;

use crate::golden::{self, Run};

/// What the bash completion script offers for the command line `words`, the last one being the
/// word under the cursor.
fn bash_completions(words: &[&str]) -> Vec<String> {
    let script = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(["completion", "bash"]).output().unwrap();
    assert!(script.status.success());
    let line = words.join(" ");
    let current = words.last().unwrap();
    let previous = words[words.len() - 2];
    let probe = format!(
        "{}\nCOMP_WORDS=({line})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n\
         _kubeupd kubeupd '{current}' '{previous}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        String::from_utf8(script.stdout).unwrap(),
        words.len() - 1,
    );
    // On stdin: the script is longer than one argument may be (128 KiB on Linux).
    let mut bash = Command::new("bash")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("bash runs");
    std::io::Write::write_all(&mut bash.stdin.take().unwrap(), probe.as_bytes()).unwrap();
    let output = bash.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().lines().map(String::from).collect()
}

#[test]
fn bash_completes_verbs_and_their_flags() {
    assert!(bash_completions(&["kubeupd", "ap"]).contains(&"apply".to_string()));
    let apply_flags = bash_completions(&["kubeupd", "apply", "--ser"]);
    assert!(apply_flags.contains(&"--server-side".to_string()), "{apply_flags:?}");
    let get_flags = bash_completions(&["kubeupd", "get", "--ser"]);
    assert!(!get_flags.contains(&"--server-side".to_string()), "get has no --server-side: {get_flags:?}");
    let dry_run = bash_completions(&["kubeupd", "patch", "--dry"]);
    assert!(dry_run.contains(&"--dry-run".to_string()), "{dry_run:?}");
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish"] {
        let output = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(["completion", shell]).output().unwrap();
        assert!(output.status.success() && !output.stdout.is_empty(), "{shell}");
    }
}

/// Usage errors as kubectl (pflag and cobra) prints them: the words, `See '... --help' for
/// usage.` with kubeupd's name, and exit status 1; compared with kubectl's own output.
#[test]
fn usage_errors_in_kubectls_words() {
    let lines = [
        &["apply", "--foo"][..],
        &["apply", "-x"],
        &["apply", "--server-side=maybe"],
        &["apply", "-f"],
        &["get", "--selector"],
        &["apply", "--grace-period=soon"],
        &["get", "-v=loud"],
        &["aply"],
        &["frobnicate"],
    ];
    let recorded = golden::kubectl("usage-errors", &[], &lines.map(Run::new));
    for (line, theirs) in lines.iter().zip(recorded) {
        let ours = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(*line).output().unwrap();
        let text = |output: &std::process::Output, name: &str| {
            (output.status.code(), String::from_utf8_lossy(&output.stderr).replace(name, "TOOL"))
        };
        assert_eq!(text(&ours, "kubeupd"), text(&theirs, "kubectl"), "{line:?}");
    }
}

/// A verb given nothing to work on says so before any request, in kubectl's words (`get`'s own,
/// the resource builder's for the others).
#[test]
fn nothing_named_is_refused_in_kubectls_words() {
    let lines = [
        &["get"][..],
        &["get", "-o", "name"],
        &["edit"],
        &["patch", "-p", "{}"],
        &["wait", "--for=delete"],
        &["delete"],
        &["label", "a=b"],
        &["scale", "--replicas", "1"],
        &["set", "image", "x=y"],
    ];
    let recorded = golden::kubectl("nothing-named", &[], &lines.map(Run::new));
    for (line, theirs) in lines.iter().zip(recorded) {
        let ours = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(*line).output().unwrap();
        // Where kubectl names itself for help (`See 'kubectl get -h'`), kubeupd does.
        let text = |output: &std::process::Output, name: &str| {
            (output.status.code(), String::from_utf8_lossy(&output.stderr).replace(&format!("'{name} "), "'TOOL "))
        };
        assert_eq!(text(&ours, "kubeupd"), text(&theirs, "kubectl"), "{line:?}");
    }
}

/// The edges of kubectl's command line that scripts reach (test/cmd's `kube_flags` give global
/// flags before the verb and after it; `-- $EXTRA` after a generator's NAME), lists of files in
/// one `stringSlice` value, and what kubectl prints for objects it makes or patches locally:
/// kubeupd's stdout, stderr and exit status are kubectl's, recorded.
#[test]
fn command_line_edges_as_kubectl() {
    let dir = "testdata/command-line";
    let dry = ["--dry-run=client", "-o", "yaml"];
    let files = format!("--from-file={dir}/a.txt,{dir}/b.txt");
    let env_files = format!("--from-env-file={dir}/a.env,{dir}/b.env");
    let objects = format!("{dir}/objects.yaml");
    let lines: Vec<Vec<&str>> = vec![
        [&["create", "configmap", "web", &files][..], &dry].concat(),
        [&["create", "secret", "generic", "web", &env_files][..], &dry].concat(),
        [&["create", "configmap", "web", "--from-file=\"a\"b"][..], &dry].concat(),
        [&["--kubeconfig", "/dev/null", "create", "namespace", "web"][..], &dry, &["--kubeconfig", "/dev/null"]]
            .concat(),
        [&["create", "configmap", "web", "-o", "json", "-o", "name", "--dry-run=client"][..]].concat(),
        [
            &["create", "secret", "docker-registry", "web", "--docker-username=u", "--docker-password=p"][..],
            &dry,
            &["--", "extra", "words"],
        ]
        .concat(),
        [&["create", "secret", "generic", "web", "more"][..], &dry, &["--", "extra"]].concat(),
        vec!["patch", "--local", "-f", &objects, "-p", "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"],
        vec!["patch", "--local", "-f", &objects, "--type=merge", "-p", "{\"metadata\":{\"name\":\"web\"}}"],
        vec!["get", "cm", "--request-timeout=-5"],
        // Objects kubectl makes from Go structs: JSON in the structs' order of keys.
        vec![
            "create",
            "configmap",
            "web",
            "--from-literal=b=1",
            "--from-literal=a=2",
            "--dry-run=client",
            "-o",
            "json",
        ],
        vec!["create", "namespace", "web", "--dry-run=client", "-o", "json"],
        vec!["create", "serviceaccount", "web", "--dry-run=client", "-o", "json"],
        vec![
            "create",
            "secret",
            "tls",
            "web",
            "--cert=testdata/tls/rsa.crt",
            "--key=testdata/tls/rsa.key",
            "--dry-run=client",
            "-o",
            "json",
        ],
        vec![
            "create",
            "deployment",
            "web",
            "--image=nginx",
            "--port=80",
            "-r",
            "2",
            "--dry-run=client",
            "-o",
            "json",
            "--",
            "sleep",
            "1",
        ],
        vec!["create", "job", "web", "--image=busybox", "--dry-run=client", "-o", "json", "--", "date"],
        vec!["create", "deployment", "web", "--image=nginx", "--port=80", "--dry-run=client", "-o", "kyaml"],
        vec!["create", "secret", "generic", "web", "--from-literal=a=b", "--type=t", "--dry-run=client", "-o", "kyaml"],
        vec!["create", "cronjob", "web", "--image=busybox", "--schedule=*/1 * * * *", "--dry-run=client", "-o", "json"],
        vec!["create", "service", "nodeport", "web", "--tcp=80:8080", "--dry-run=client", "-o", "json"],
        vec![
            "create",
            "service",
            "externalname",
            "web",
            "--external-name=example.com",
            "--dry-run=client",
            "-o",
            "json",
        ],
        vec!["create", "ingress", "web", "--rule=example.com/a*=web:80,tls=cert", "--dry-run=client", "-o", "json"],
        vec!["create", "clusterrolebinding", "web", "--clusterrole=view", "--user=u", "--dry-run=client", "-o", "json"],
        vec![
            "create",
            "poddisruptionbudget",
            "web",
            "--selector=app=web",
            "--min-available=1",
            "--dry-run=client",
            "-o",
            "json",
        ],
        vec!["create", "priorityclass", "web", "--value=10", "--dry-run=client", "-o", "json"],
        vec!["create", "quota", "web", "--hard=pods=1", "--scopes=BestEffort", "--dry-run=client", "-o", "json"],
        vec!["wait", "cm/web", "--timeout=30"],
    ];
    let runs: Vec<Run> = lines.iter().map(|line| Run::new(line)).collect();
    let inputs = ["testdata/command-line", "testdata/tls"].map(|dir| Path::new(env!("CARGO_MANIFEST_DIR")).join(dir));
    let recorded = golden::kubectl("command-line-edges", &[&inputs[0], &inputs[1]], &runs);
    for (line, theirs) in lines.iter().zip(recorded) {
        let ours = assert_cmd::Command::cargo_bin("kubeupd")
            .unwrap()
            .args(line)
            .env("KUBECONFIG", "/dev/null")
            .env("KUBERC", "off")
            .output()
            .unwrap();
        let text = |output: &std::process::Output, name: &str| {
            let stderr = String::from_utf8_lossy(&output.stderr).replace(&format!("'{name} "), "'TOOL ");
            (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
        };
        assert_eq!(text(&ours, "kubeupd"), text(&theirs, "kubectl"), "{line:?}");
    }
}

/// The words of `line` after `kubeupd`, parsed as `run` parses them.
fn parsed(line: &str) -> Result<kubeupd::cli::Cli, String> {
    kubeupd::cli::parse(std::iter::once("kubeupd").chain(line.split(' ')))
}

/// Lines kubectl takes, from CI scripts: words a verb leaves unread, files separated by commas,
/// `--record` where kubectl registers it (with pflag's warning), flags before the verb.
#[test]
fn lines_kubectl_takes_parse() {
    let Ok(kubeupd::cli::Cli { command: kubeupd::cli::Command::Replace(replace), .. }) =
        parsed("replace cm web -n x -f a.yaml,b.yaml")
    else {
        panic!("replace with words it does not read")
    };
    assert_eq!(replace.files.filenames, ["a.yaml", "b.yaml"].map(std::path::PathBuf::from));
    assert_eq!(replace.extra.words, ["cm", "web"]);
    let warning = "Flag --record has been deprecated, --record will be removed in the future";
    for line in ["annotate pod p a=b --record", "-n x --record=false label pod p a=b", "create --record -f a.yaml"] {
        assert_eq!(parsed(line).unwrap().deprecated, [warning], "{line}");
    }
    assert!(parsed("set env deploy/web A=1 --record").unwrap_err().starts_with("error: unknown flag: --record"));
    assert!(parsed("create secret generic s --record").unwrap_err().starts_with("error: unknown flag: --record"));
    assert!(parsed("--namespace x --overwrite=true annotate pod p a=b").is_ok());
    assert!(parsed("create -n argocd secret tls t --cert=c --key=k").is_ok());
    // A list flag's value is one CSV record, as pflag reads a stringSlice.
    let Ok(kubeupd::cli::Cli { command: kubeupd::cli::Command::Replace(replace), .. }) =
        parsed("replace -f \"a,b.yaml\",c.yaml -Rf d.yaml")
    else {
        panic!("replace with a quoted file name")
    };
    assert_eq!(replace.files.filenames, ["a,b.yaml", "c.yaml", "d.yaml"].map(std::path::PathBuf::from));
    // A flag given twice keeps the last value, global flags before and after the verb included.
    let cli = parsed("--kubeconfig a -n x apply -f f.yaml --kubeconfig b -n y").unwrap();
    assert_eq!((cli.global.kubeconfig, cli.global.namespace), (Some("b".into()), Some("y".into())));
}
