//! What a macro's body computes when a call of it expands: quote templates (`quote ... end`,
//! `:(...)`) with `$x`, `$(esc(x))` and `$(xs...)` interpolation, `esc`, `Expr(head, args...)`,
//! `Symbol(...)` and `string(...)` of names, strings and integers, tuples and vectors,
//! `push!` onto them or onto an expression's `args`, assignments (also destructuring) and
//! `for` loops over collections built so. Anything else is refused by name at the construct,
//! inside the macro's definition.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{ExprKind, TextRange};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// A value that a macro's body computes with.
#[derive(Clone)]
pub(crate) enum Value {
    /// An expression (a `Symbol` is an identifier leaf), `escaped` by `esc`, `argument` if it
    /// is one of the call's arguments as given (not yet escaped nor built into a template).
    Code {
        node: SyntaxNode,
        escaped: bool,
        argument: bool,
    },
    Str(String),
    Int(i64),
    /// A tuple or vector.
    List(Vec<Value>),
    Nothing,
}

/// The most nodes and values one expansion may make (a loop doubling an expression would
/// otherwise grow it past any memory).
const MAX_EXPANSION_SIZE: usize = 100_000;

/// A refusal, already reported.
pub(crate) struct Refused;

type Eval<T> = Result<T, Refused>;

/// The evaluation of one call's expansion.
pub(crate) struct Expander<'c, 'a> {
    pub cx: &'c mut Cx<'a>,
    /// The macro's name, with its `@`.
    name: String,
    /// The call's range: code inside it is the caller's.
    call: TextRange,
    env: BTreeMap<String, Value>,
    /// Set by `return` until the body is left.
    returning: bool,
    /// The ranges of the template's leaves that `esc` marked: hygiene leaves them alone.
    pub escaped_template: BTreeSet<(u32, u32)>,
    /// The names of the call's arguments put into code without `esc` (yet).
    unescaped: BTreeSet<(u32, u32)>,
    /// How many nodes and values the expansion has made so far.
    size: usize,
}

impl<'c, 'a> Expander<'c, 'a> {
    /// An expander of a call of `name` at `call`, its parameters bound to `env`.
    pub fn new(
        cx: &'c mut Cx<'a>,
        name: &str,
        call: TextRange,
        env: BTreeMap<String, Value>,
    ) -> Self {
        Expander {
            cx,
            name: name.to_string(),
            call,
            env,
            returning: false,
            escaped_template: BTreeSet::new(),
            unescaped: BTreeSet::new(),
            size: 0,
        }
    }

    /// Refuses `node` of the macro's body as something the expansion cannot compute.
    fn refuse<T>(&mut self, node: &SyntaxNode, what: &str) -> Eval<T> {
        let message = format!(
            "{what} in the body of macro {}; zy expands quote templates with `$` \
             interpolation, `esc`, `Expr(head, args...)`, `Symbol`/`string` of names, and \
             loops over literal collections",
            self.name
        );
        self.cx.unsupported(node, &message);
        Err(Refused)
    }

    /// Counts `n` more nodes or values made, refusing past [`MAX_EXPANSION_SIZE`] (at the
    /// call: its arguments decide the size).
    fn grow(&mut self, n: usize) -> Eval<()> {
        self.size = self.size.saturating_add(n);
        if self.size > MAX_EXPANSION_SIZE {
            let message = format!(
                "macro {}: an expansion of more than {MAX_EXPANSION_SIZE} nodes",
                self.name
            );
            self.cx.unsupported_at(self.call, &message);
            return Err(Refused);
        }
        Ok(())
    }

    /// The value of the statements of a block.
    pub fn run(&mut self, statements: &[SyntaxNode]) -> Eval<Value> {
        let mut value = Value::Nothing;
        for statement in statements {
            value = self.eval(statement)?;
            if self.returning {
                break;
            }
        }
        Ok(value)
    }

    fn eval(&mut self, node: &SyntaxNode) -> Eval<Value> {
        if !self.cx.enter(node) {
            return Err(Refused);
        }
        let value = self.eval_inner(node);
        self.cx.leave();
        value
    }

    fn eval_inner(&mut self, node: &SyntaxNode) -> Eval<Value> {
        if node.leaf {
            let text = self.cx.text(node);
            return match node.kind {
                Kind::Identifier if text == "nothing" => Ok(Value::Nothing),
                Kind::Identifier => match self.env.get(text) {
                    Some(value) => Ok(value.clone()),
                    None => {
                        self.refuse(node, &format!("`{text}`, a name the macro does not bind,"))
                    }
                },
                Kind::Integer => match text.replace('_', "").parse() {
                    Ok(n) => Ok(Value::Int(n)),
                    Err(_) => self.refuse(node, "an integer literal out of range"),
                },
                _ => self.refuse(node, &format!("`{text}`")),
            };
        }
        match (node.kind, node.children.as_slice()) {
            (Kind::Parens, [inner]) => self.eval(inner),
            (Kind::Block, statements) => self.run(statements),
            (Kind::Quote, [quoted]) => self.quote(quoted),
            (Kind::StringLit, _) => match crate::literals::string(self.cx, node).kind {
                ExprKind::Str(s) => Ok(Value::Str(s)),
                _ => self.refuse(node, "an interpolated string"),
            },
            (Kind::Tuple | Kind::Vect, items) => Ok(Value::List(self.values(items)?)),
            (Kind::Assign, [lhs, rhs]) => {
                let value = self.eval(rhs)?;
                self.assign(lhs, value.clone())?;
                Ok(value)
            }
            (Kind::For, [iteration, body]) => self.for_loop(node, iteration, body),
            (Kind::Return, []) => {
                self.returning = true;
                Ok(Value::Nothing)
            }
            (Kind::Return, [value]) => {
                let value = self.eval(value)?;
                self.returning = true;
                Ok(value)
            }
            (Kind::Dot, [base, field]) if self.cx.text(field) == "args" => {
                match self.eval(base)? {
                    Value::Code { mut node, .. } if !node.leaf => Ok(Value::List(
                        std::mem::take(&mut node.children)
                            .into_iter()
                            .map(built)
                            .collect(),
                    )),
                    _ => self.refuse(node, "`.args` of a value that is not an expression"),
                }
            }
            (Kind::Call, [callee, args @ ..])
                if !node.is_infix() && callee.kind == Kind::Identifier =>
            {
                let f = self.cx.text(callee);
                self.call(node, f, args)
            }
            _ => self.refuse(node, &format!("`{}`", node.kind.name())),
        }
    }

    /// The values of `items`, with `xs...` spliced.
    fn values(&mut self, items: &[SyntaxNode]) -> Eval<Vec<Value>> {
        let mut out = Vec::new();
        for item in items {
            match (item.kind, item.children.as_slice()) {
                (Kind::Splat, [inner]) if !item.leaf => match self.eval(inner)? {
                    Value::List(values) => out.extend(values),
                    _ => {
                        return self.refuse(item, "splatting a value that is not a tuple or vector")
                    }
                },
                _ => out.push(self.eval(item)?),
            }
        }
        self.grow(out.len())?;
        Ok(out)
    }

    fn assign(&mut self, lhs: &SyntaxNode, value: Value) -> Eval<()> {
        if lhs.leaf && lhs.kind == Kind::Identifier {
            let name = self.cx.text(lhs).to_string();
            self.env.insert(name, value);
            return Ok(());
        }
        match (lhs.kind, value) {
            (Kind::Tuple, Value::List(values)) if values.len() == lhs.children.len() => {
                for (name, value) in lhs.children.iter().zip(values) {
                    self.assign(name, value)?;
                }
                Ok(())
            }
            _ => self.refuse(lhs, "an assignment to anything but names"),
        }
    }

    /// `for v in collection ... end` over a tuple or vector computed by the body.
    fn for_loop(
        &mut self,
        node: &SyntaxNode,
        iteration: &SyntaxNode,
        body: &SyntaxNode,
    ) -> Eval<Value> {
        let [spec] = iteration.children.as_slice() else {
            return self.refuse(node, "a loop over several iterators");
        };
        let (Kind::In, [var, collection]) = (spec.kind, spec.children.as_slice()) else {
            return self.refuse(node, "this loop");
        };
        let Value::List(values) = self.eval(collection)? else {
            return self.refuse(
                collection,
                "a loop over a value that is not a tuple or vector",
            );
        };
        for value in values {
            self.assign(var, value)?;
            self.run(&body.children)?;
            if self.returning {
                break;
            }
        }
        Ok(Value::Nothing)
    }

    fn call(&mut self, node: &SyntaxNode, f: &str, args: &[SyntaxNode]) -> Eval<Value> {
        match f {
            "esc" => {
                let [arg] = args else {
                    return self.refuse(node, "`esc` of other than one argument");
                };
                let value = self.eval(arg)?;
                Ok(self.escape(value))
            }
            "Expr" => {
                let values = self.values(args)?;
                self.expr(node, values)
            }
            "Symbol" | "string" => {
                let mut text = String::new();
                for value in self.values(args)? {
                    match value {
                        Value::Str(s) => text.push_str(&s),
                        Value::Int(n) => text.push_str(&n.to_string()),
                        Value::Code { node: name, .. }
                            if name.leaf && name.kind == Kind::Identifier =>
                        {
                            text.push_str(self.cx.text(&name));
                        }
                        _ => {
                            return self.refuse(
                                node,
                                &format!("`{f}` of a value other than a name, string or integer"),
                            )
                        }
                    }
                }
                Ok(match f {
                    "string" => Value::Str(text),
                    _ => built(self.leaf(Kind::Identifier, &text)),
                })
            }
            "push!" => {
                let [target, rest @ ..] = args else {
                    return self.refuse(node, "`push!` without a collection");
                };
                let values = self.values(rest)?;
                self.push(target, values)
            }
            _ => self.refuse(node, &format!("a call of `{f}`")),
        }
    }

    /// `esc(value)`: its code is the caller's.
    fn escape(&mut self, value: Value) -> Value {
        match value {
            Value::Code { node, .. } => {
                let call = self.call;
                leaves(&node, &mut |leaf| {
                    let range = (leaf.range.start, leaf.range.end);
                    self.unescaped.remove(&range);
                    if !inside(leaf.range, call) {
                        self.escaped_template.insert(range);
                    }
                });
                Value::Code {
                    node,
                    escaped: true,
                    argument: false,
                }
            }
            Value::List(values) => {
                Value::List(values.into_iter().map(|v| self.escape(v)).collect())
            }
            other => other,
        }
    }

    /// `push!(xs, values...)` of a vector the body holds, or of `ex.args`.
    fn push(&mut self, target: &SyntaxNode, values: Vec<Value>) -> Eval<Value> {
        let (name, into_args) = match (target.leaf, target.kind, target.children.as_slice()) {
            (true, Kind::Identifier, _) => (self.cx.text(target).to_string(), false),
            (false, Kind::Dot, [base, field])
                if base.leaf && base.kind == Kind::Identifier && self.cx.text(field) == "args" =>
            {
                (self.cx.text(base).to_string(), true)
            }
            _ => return self.refuse(target, "`push!` onto other than a name or `ex.args`"),
        };
        let mut nodes = Vec::new();
        if into_args {
            for value in values.iter().cloned() {
                nodes.extend(self.nodes(target, value, false)?);
            }
        }
        match (self.env.get_mut(&name), into_args) {
            (Some(Value::List(list)), false) => {
                list.extend(values);
                Ok(Value::List(list.clone()))
            }
            (Some(Value::Code { node, .. }), true) if !node.leaf => {
                node.children.extend(nodes);
                Ok(Value::List(
                    node.children.iter().cloned().map(built).collect(),
                ))
            }
            _ => self.refuse(
                target,
                "`push!` onto a value that is not a vector or an expression",
            ),
        }
    }

    /// `Expr(head, args...)`.
    fn expr(&mut self, node: &SyntaxNode, values: Vec<Value>) -> Eval<Value> {
        let mut values = values.into_iter();
        let head = match values.next() {
            Some(Value::Code { node: head, .. }) if head.leaf => self.cx.text(&head).to_string(),
            _ => return self.refuse(node, "`Expr` without a symbol for its head"),
        };
        let kind = match head.as_str() {
            "call" => Kind::Call,
            "block" => Kind::Block,
            "=" => Kind::Assign,
            "tuple" => Kind::Tuple,
            "vect" => Kind::Vect,
            "ref" => Kind::Ref,
            "return" => Kind::Return,
            _ => return self.refuse(node, &format!("`Expr(:{head}, ...)`")),
        };
        let mut children = Vec::new();
        for value in values {
            children.extend(self.nodes(node, value, false)?);
        }
        let range = self.built_range("");
        Ok(built(SyntaxNode {
            kind,
            flags: 0,
            range,
            leaf: false,
            children,
            trivia_errors: Vec::new(),
        }))
    }

    /// `quote ... end`, `:(...)` or `:name`.
    fn quote(&mut self, quoted: &SyntaxNode) -> Eval<Value> {
        let template = match (quoted.kind, quoted.children.as_slice()) {
            (Kind::Parens, [inner]) if !quoted.leaf => inner,
            _ => quoted,
        };
        let mut nodes = self.template(template)?;
        let node = match nodes.len() {
            1 => nodes.remove(0),
            _ => {
                return self.refuse(
                    quoted,
                    "a template that splices several expressions at its top",
                )
            }
        };
        Ok(built(node))
    }

    /// The nodes a template stands for: a copy, with its interpolations' values in place.
    fn template(&mut self, node: &SyntaxNode) -> Eval<Vec<SyntaxNode>> {
        self.grow(1)?;
        if node.leaf {
            return Ok(vec![node.clone()]);
        }
        match (node.kind, node.children.as_slice()) {
            (Kind::Interpolate, [inner]) => {
                let inner = match (inner.kind, inner.children.as_slice()) {
                    (Kind::Parens, [e]) if !inner.leaf => e,
                    _ => inner,
                };
                match (inner.kind, inner.children.as_slice()) {
                    (Kind::Splat, [list]) if !inner.leaf => {
                        let value = self.eval(list)?;
                        self.nodes(node, value, true)
                    }
                    _ => {
                        let value = self.eval(inner)?;
                        self.nodes(node, value, false)
                    }
                }
            }
            (Kind::Quote, _) => self.refuse(node, "a quote inside a template"),
            _ => {
                if !self.cx.enter(node) {
                    return Err(Refused);
                }
                let mut children = Vec::new();
                for child in &node.children {
                    match self.template(child) {
                        Ok(nodes) => children.extend(nodes),
                        Err(refused) => {
                            self.cx.leave();
                            return Err(refused);
                        }
                    }
                }
                self.cx.leave();
                Ok(vec![SyntaxNode {
                    kind: node.kind,
                    flags: node.flags,
                    range: node.range,
                    leaf: false,
                    children,
                    trivia_errors: Vec::new(),
                }])
            }
        }
    }

    /// The nodes a value stands for in code (`splat`: each element of a tuple or vector).
    pub fn nodes(&mut self, at: &SyntaxNode, value: Value, splat: bool) -> Eval<Vec<SyntaxNode>> {
        Ok(match value {
            Value::Code {
                node,
                escaped,
                argument,
            } => {
                let mut size = 0;
                leaves(&node, &mut |_| size += 1);
                self.grow(size)?;
                if argument && !escaped {
                    leaves(&node, &mut |leaf| {
                        if leaf.kind == Kind::Identifier {
                            self.unescaped.insert((leaf.range.start, leaf.range.end));
                        }
                    });
                }
                vec![node]
            }
            Value::Int(n) => vec![self.leaf(Kind::Integer, &n.to_string())],
            Value::Nothing => vec![self.leaf(Kind::Identifier, "nothing")],
            Value::Str(s) => {
                let mut escaped = String::new();
                for c in s.chars() {
                    if matches!(c, '\\' | '"' | '$') {
                        escaped.push('\\');
                    }
                    escaped.push(c);
                }
                let chunk = self.leaf(Kind::String, &escaped);
                vec![SyntaxNode {
                    kind: Kind::StringLit,
                    flags: 0,
                    range: chunk.range,
                    leaf: false,
                    children: vec![chunk],
                    trivia_errors: Vec::new(),
                }]
            }
            Value::List(values) if splat => {
                let mut out = Vec::new();
                for value in values {
                    out.extend(self.nodes(at, value, false)?);
                }
                out
            }
            Value::List(_) => return self.refuse(at, "a tuple or vector interpolated whole"),
        })
    }

    /// Refuses the expansion if a name of the call's arguments is in it without `esc`:
    /// Julia's hygiene would read it as a global of the macro's module.
    pub fn check_escaped(&mut self) -> Eval<()> {
        let Some(&(start, end)) = self.unescaped.iter().next() else {
            return Ok(());
        };
        let range = TextRange::new(start, end);
        let text = self.cx.slice(range).to_string();
        let message = format!(
            "`{text}`, passed to macro {}, used in its expansion without `esc` (Julia's \
             hygiene reads it as a global of the macro's module); write `$(esc(x))`",
            self.name
        );
        self.cx.unsupported_at(range, &message);
        Err(Refused)
    }

    /// A leaf that the macro built, reading `text`.
    fn leaf(&mut self, kind: Kind, text: &str) -> SyntaxNode {
        SyntaxNode {
            kind,
            flags: 0,
            range: self.built_range(text),
            leaf: true,
            children: Vec::new(),
            trivia_errors: Vec::new(),
        }
    }

    /// A fresh range, outside every text, whose text is `text`.
    fn built_range(&mut self, text: &str) -> TextRange {
        let start = self.cx.next_built;
        self.cx.next_built = start.saturating_add(1);
        let range = TextRange::new(start, start.saturating_add(1));
        let text: &'a str = self.cx.arena.alloc_str(text);
        self.cx
            .expansion_text
            .insert((range.start, range.end), text);
        range
    }
}

/// A value built by the macro (not one of the call's arguments as given).
fn built(node: SyntaxNode) -> Value {
    Value::Code {
        node,
        escaped: false,
        argument: false,
    }
}

/// Is `range` inside `outer`?
pub(crate) fn inside(range: TextRange, outer: TextRange) -> bool {
    outer.start <= range.start && range.end <= outer.end
}

/// Calls `f` on every leaf under `node`.
pub(crate) fn leaves(node: &SyntaxNode, f: &mut dyn FnMut(&SyntaxNode)) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.leaf {
            f(n);
        } else {
            stack.extend(n.children.iter().rev());
        }
    }
}
