//! Running a parsed template over a value, with Go's execution errors and their locations.

use serde_json::Value;

use super::functions::{self, CallError};
use super::parser::{Arg, Command, Node, Pipe};
use super::{Error, Template};
use crate::gocompat::fmt::GoValue as V;

/// How a body ended: normally, or by `{{break}}` or `{{continue}}`.
enum Flow {
    Normal,
    Break,
    Continue,
}

struct State<'a> {
    template: &'a Template,
    out: String,
    variables: Vec<(String, V)>,
    missing_is_error: bool,
    depth: usize,
    /// The template running: `output`, or the `{{define}}`d one called.
    name: &'a str,
    /// The template a failure happened in, once known (Go's `executing "NAME"`).
    failed_in: Option<&'a str>,
}

/// An execution error before its location is added: the node Go reports and the message.
struct Failure {
    pos: usize,
    context: String,
    message: String,
}

type Run<T> = Result<T, Failure>;

/// The largest stack of a goroutine on 64-bit platforms (Go's `maxstacksize`).
const GO_MAX_STACK: usize = 1 << 30;

impl Template {
    /// Runs the template on `data`; `allow_missing_keys` is kubectl's
    /// `--allow-missing-template-keys` (a missing key prints `<no value>` instead of failing).
    pub fn execute(&self, data: &Value, allow_missing_keys: bool) -> Result<String, Error> {
        if self.defined.is_empty() {
            return self.execute_here(data, allow_missing_keys);
        }
        // Only `{{template}}` recurses without bound: Go stops at 100000 calls deep, on a
        // goroutine stack that grows to 1 GiB. Such a template runs on a thread whose stack may
        // grow as far (reserved, not used, until it is reached), so that the same limit is met
        // where Go meets it rather than overflowing this thread's stack.
        std::thread::scope(|scope| {
            let run = || self.execute_here(data, allow_missing_keys);
            match std::thread::Builder::new().stack_size(GO_MAX_STACK).spawn_scoped(scope, run) {
                Ok(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => self.execute_here(data, allow_missing_keys),
            }
        })
    }

    fn execute_here(&self, data: &Value, allow_missing_keys: bool) -> Result<String, Error> {
        let root = V::of(data);
        let mut state = State {
            template: self,
            out: String::new(),
            variables: vec![("$".to_string(), root.clone())],
            missing_is_error: !allow_missing_keys,
            depth: 0,
            name: "output",
            failed_in: None,
        };
        match state.walk(&self.root, &root) {
            Ok(_) => Ok(state.out),
            Err(failure) => {
                let before = &self.text[..failure.pos.min(self.text.len())];
                let line = 1 + before.matches('\n').count();
                let column = match before.rfind('\n') {
                    Some(newline) => failure.pos - newline - 1,
                    None => failure.pos,
                };
                let message = format!(
                    "template: output:{line}:{column}: executing {:?} at <{}>: {}",
                    state.failed_in.unwrap_or(state.name),
                    failure.context,
                    failure.message
                );
                Err(Error::Execute { message, partial: state.out })
            }
        }
    }
}

impl<'a> State<'a> {
    fn walk(&mut self, nodes: &[Node], dot: &V) -> Run<Flow> {
        for node in nodes {
            match self.node(node, dot)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn scoped(&mut self, nodes: &[Node], dot: &V) -> Run<Flow> {
        let mark = self.variables.len();
        let flow = self.walk(nodes, dot);
        self.variables.truncate(mark);
        flow
    }

    fn node(&mut self, node: &Node, dot: &V) -> Run<Flow> {
        match node {
            Node::Text(text) => self.out.push_str(text),
            Node::Action(pipe) => {
                let value = self.pipe(pipe, dot)?;
                if pipe.variables.is_empty() {
                    match value {
                        V::Missing | V::Nil => self.out.push_str("<no value>"),
                        value => self.out.push_str(&value.text()),
                    }
                }
            }
            Node::If { pipe, then, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe(pipe, dot)?;
                let flow = if truth(&value) { self.scoped(then, dot)? } else { self.scoped(otherwise, dot)? };
                self.variables.truncate(mark);
                return Ok(flow);
            }
            Node::With { pipe, then, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe(pipe, dot)?;
                let flow = if truth(&value) { self.scoped(then, &value)? } else { self.scoped(otherwise, dot)? };
                self.variables.truncate(mark);
                return Ok(flow);
            }
            Node::Range { pipe, body, otherwise } => {
                let mark = self.variables.len();
                let value = self.pipe_value(pipe, dot)?;
                // Lazily: `{{range 1000000000000}}` runs (as long as Go does) rather than allocating.
                let items: Box<dyn Iterator<Item = (V, V)> + '_> = match &value {
                    V::List(items) => {
                        Box::new(items.iter().enumerate().map(|(i, item)| (V::Count(i as i64), V::of(item))))
                    }
                    V::Map(map) => Box::new(map.iter().map(|(key, item)| (V::Str(key.clone()), V::of(item)))),
                    V::Missing | V::Nil => Box::new(std::iter::empty()),
                    V::Int(count) | V::Count(count) => Box::new((0..*count).map(|i| (V::Count(i), V::Count(i)))),
                    other => {
                        let (pos, context) = last_node(pipe);
                        return Err(Failure {
                            pos,
                            context,
                            message: format!("range can't iterate over {}", other.text()),
                        });
                    }
                };
                let mut items = items.peekable();
                if items.peek().is_none() {
                    let flow = self.scoped(otherwise, dot)?;
                    self.variables.truncate(mark);
                    return Ok(flow);
                }
                for (key, item) in items {
                    let inner = self.variables.len();
                    match pipe.variables.as_slice() {
                        [one] => self.variables.push((one.clone(), item.clone())),
                        [first, second] => {
                            self.variables.push((first.clone(), key));
                            self.variables.push((second.clone(), item.clone()));
                        }
                        _ => {}
                    }
                    let flow = self.walk(body, &item)?;
                    self.variables.truncate(inner);
                    if matches!(flow, Flow::Break) {
                        break;
                    }
                }
                self.variables.truncate(mark);
            }
            Node::Call { pos, name, pipe } => {
                let template = self.template;
                let Some((name, body)) = template.defined.get_key_value(name) else {
                    let context = format!("{{{{template {name:?}}}}}");
                    return Err(Failure { pos: *pos, context, message: format!("template {name:?} not defined") });
                };
                let value = match pipe {
                    Some(pipe) => self.pipe(pipe, dot)?,
                    None => V::Nil,
                };
                if self.depth >= 100_000 {
                    let context = match pipe {
                        Some(pipe) => format!("{{{{template {name:?} {}}}}}", pipe_text(pipe)),
                        None => format!("{{{{template {name:?}}}}}"),
                    };
                    self.failed_in = Some(self.name);
                    return Err(Failure {
                        pos: *pos,
                        context,
                        message: "exceeded maximum template depth (100000)".into(),
                    });
                }
                self.depth += 1;
                let saved = std::mem::replace(&mut self.variables, vec![("$".to_string(), value.clone())]);
                let caller = std::mem::replace(&mut self.name, name);
                let flow = self.walk(body, &value);
                if flow.is_err() && self.failed_in.is_none() {
                    self.failed_in = Some(name);
                }
                self.name = caller;
                self.variables = saved;
                self.depth -= 1;
                flow?;
            }
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    /// A pipeline's value; its variables declared or assigned.
    fn pipe(&mut self, pipe: &Pipe, dot: &V) -> Run<V> {
        let value = self.pipe_value(pipe, dot)?;
        if let [name] = pipe.variables.as_slice() {
            self.set(name, value.clone(), pipe.assign);
        }
        Ok(value)
    }

    fn pipe_value(&mut self, pipe: &Pipe, dot: &V) -> Run<V> {
        let mut value: Option<V> = None;
        for command in &pipe.commands {
            value = Some(self.command(command, dot, value)?);
        }
        Ok(value.unwrap_or(V::Missing))
    }

    fn set(&mut self, name: &str, value: V, assign: bool) {
        if assign && let Some(slot) = self.variables.iter_mut().rev().find(|(known, _)| known == name) {
            slot.1 = value;
            return;
        }
        self.variables.push((name.to_string(), value));
    }

    fn command(&mut self, command: &Command, dot: &V, piped: Option<V>) -> Run<V> {
        let first = &command.args[0];
        if let Arg::Function { name, .. } = first {
            return self.function(name, command, dot, piped);
        }
        if command.args.len() > 1 || piped.is_some() {
            let (pos, names) = match first {
                Arg::Field { pos, names } | Arg::Variable { pos, names, .. } | Arg::Group { pos, names, .. } => {
                    (*pos, names)
                }
                _ => (command.pos, &Vec::new()),
            };
            let message = match names.last() {
                Some(name) => format!("{name} is not a method but has arguments"),
                None => format!("can't give argument to non-function {}", arg_text(first)),
            };
            return Err(Failure { pos, context: arg_text(first), message });
        }
        match first {
            Arg::Nil { pos } => {
                Err(Failure { pos: *pos, context: "nil".into(), message: "nil is not a command".into() })
            }
            arg => self.arg(arg, dot),
        }
    }

    fn arg(&mut self, arg: &Arg, dot: &V) -> Run<V> {
        match arg {
            Arg::Field { pos, names } => self.fields(dot.clone(), names, *pos, arg),
            Arg::Variable { pos, name, names } => {
                let value = self.variables.iter().rev().find(|(known, _)| known == name).map(|(_, v)| v.clone());
                self.fields(value.unwrap_or(V::Missing), names, *pos, arg)
            }
            Arg::Group { pos, pipe, names } => {
                let value = self.pipe_value(pipe, dot)?;
                self.fields(value, names, *pos, arg)
            }
            Arg::Literal(value, _) => Ok(value.clone()),
            Arg::Nil { .. } => Ok(V::Nil),
            Arg::Function { pos, name } => {
                let command = Command { pos: *pos, args: vec![arg.clone()] };
                self.function(name, &command, dot, None)
            }
        }
    }

    fn fields(&self, mut value: V, names: &[String], pos: usize, arg: &Arg) -> Run<V> {
        for name in names {
            value = match value {
                V::Map(map) => match map.get(name) {
                    Some(found) => V::of(found),
                    None if self.missing_is_error => {
                        let message = format!("map has no entry for key {name:?}");
                        return Err(Failure { pos, context: arg_text(arg), message });
                    }
                    None => V::Missing,
                },
                V::Missing | V::Nil => V::Missing,
                _ => {
                    let message = format!("can't evaluate field {name} in type interface {{}}");
                    return Err(Failure { pos, context: arg_text(arg), message });
                }
            };
        }
        Ok(value)
    }

    fn function(&mut self, name: &str, command: &Command, dot: &V, piped: Option<V>) -> Run<V> {
        let fail = |message: String| Failure { pos: command.pos, context: command_text(command), message };
        // Go names the function alone when the number of arguments is wrong.
        let count_error = |message: String| Failure { pos: command.pos, context: name.to_string(), message };
        let operands = &command.args[1..];
        // `and` and `or` stop at the first operand that decides.
        if name == "and" || name == "or" {
            if operands.is_empty() && piped.is_none() {
                return Err(count_error(format!("wrong number of args for {name}: want at least 1 got 0")));
            }
            let mut last = V::Missing;
            for operand in operands {
                last = self.arg(operand, dot)?;
                if truth(&last) == (name == "or") {
                    return Ok(last);
                }
            }
            return Ok(piped.unwrap_or(last));
        }
        let mut args = Vec::with_capacity(operands.len() + 1);
        for operand in operands {
            args.push(self.arg(operand, dot)?);
        }
        args.extend(piped);
        functions::call(name, &args).map_err(|err| match err {
            CallError::Count(message) => count_error(message),
            CallError::Calling(message) => fail(format!("error calling {name}: {message}")),
            CallError::Type(message) => fail(message),
        })
    }
}

fn arg_text(arg: &Arg) -> String {
    let chain = |names: &[String]| names.iter().map(|name| format!(".{name}")).collect::<String>();
    match arg {
        Arg::Field { names, .. } if names.is_empty() => ".".into(),
        Arg::Field { names, .. } => chain(names),
        Arg::Variable { name, names, .. } => format!("{name}{}", chain(names)),
        Arg::Group { pipe, names, .. } => format!("({}){}", pipe_text(pipe), chain(names)),
        Arg::Function { name, .. } => name.clone(),
        Arg::Literal(_, text) => text.clone(),
        Arg::Nil { .. } => "nil".into(),
    }
}

/// The node Go last looked at in `pipe`, which its errors after the pipeline name: the value of
/// a last command that is one operand, else that command.
fn last_node(pipe: &Pipe) -> (usize, String) {
    let Some(command) = pipe.commands.last() else { return (0, String::new()) };
    match command.args.as_slice() {
        [Arg::Field { pos, .. } | Arg::Variable { pos, .. } | Arg::Group { pos, .. }] => {
            (*pos, arg_text(&command.args[0]))
        }
        _ => (command.pos, command_text(command)),
    }
}

fn command_text(command: &Command) -> String {
    command.args.iter().map(arg_text).collect::<Vec<_>>().join(" ")
}

fn pipe_text(pipe: &Pipe) -> String {
    let commands = pipe.commands.iter().map(command_text).collect::<Vec<_>>().join(" | ");
    match pipe.variables.as_slice() {
        [] => commands,
        names => format!("{} {} {commands}", names.join(", "), if pipe.assign { "=" } else { ":=" }),
    }
}

/// text/template's truth of a value (`if`, `with`, `and`, `or`, `not`).
pub(super) fn truth(value: &V) -> bool {
    match value {
        V::Missing | V::Nil => false,
        V::Bool(flag) => *flag,
        V::Int(int) | V::Count(int) => *int != 0,
        V::Float(float) => *float != 0.0,
        V::Str(text) => !text.is_empty(),
        V::List(items) => !items.is_empty(),
        V::Map(map) => !map.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(template: &str, data: &Value) -> String {
        Template::parse(template).unwrap().execute(data, false).unwrap()
    }

    // Examples from the text/template documentation ("Examples" and "Actions").
    #[test]
    fn pipelines_pass_their_value_as_the_last_argument() {
        let dot = Value::Null;
        assert_eq!(run(r#"{{"\"output\""}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{printf "%q" "output"}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{"output" | printf "%q"}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{printf "%q" (print "out" "put")}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{"put" | printf "%s%s" "out" | printf "%q"}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{with $x := "output" | printf "%q"}}{{$x}}{{end}}"#, &dot), "\"output\"");
        assert_eq!(run(r#"{{with $x := "output"}}{{$x | printf "%q"}}{{end}}"#, &dot), "\"output\"");
    }

    #[test]
    fn empty_values_are_false_and_range_else_runs_on_nothing() {
        let data = json!({"zero": 0, "empty": "", "none": null, "list": [], "map": {}, "items": ["a", "b"]});
        assert_eq!(
            run(
                "{{if .zero}}1{{else if .empty}}2{{else if .none}}3{{else if .list}}4{{else if .map}}5{{else}}none{{end}}",
                &data
            ),
            "none"
        );
        assert_eq!(run("{{range .list}}x{{else}}empty{{end}}", &data), "empty");
        assert_eq!(run("{{range $i, $e := .items}}{{$i}}:{{$e}} {{end}}", &data), "0:a 1:b ");
        assert_eq!(run("{{range .items}}{{if eq . \"b\"}}{{break}}{{end}}{{.}}{{end}}", &data), "a");
        assert_eq!(run("{{with .none}}set{{else}}unset{{end}}", &data), "unset");
    }

    #[test]
    fn defined_templates_run_with_the_dot_they_are_given() {
        let data = json!({"name": "web"});
        assert_eq!(run(r#"{{define "T"}}<{{.}}>{{end}}{{template "T" .name}}"#, &data), "<web>");
        assert_eq!(run(r#"{{block "B" .name}}[{{.}}]{{end}}"#, &data), "[web]");
    }
}
