//! Hover: the docstrings of the name under the cursor ([`crate::docs`]), then what zy knows
//! about it in the specialisation of the enclosing function (at its `# zy: at` call, else as an
//! annotated call reaches it, [`hover_specialisation`]): types,
//! gradient types, the reaching-gradient summary, and which rule differentiates a call.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use zy_ad::activity::{analyse, Activity, ArgGradient};
use zy_ad::{AdError, AdjointOrigin, InstanceAdjoint};
use zy_hir::{AdjointKey, RootDatabase, SourceFile};
use zy_ir::{tangent_type, Function, Op, Prim, Type, TypeExpr, ValueKind};

use crate::definition::{code_module, defining_items, dotted};
use crate::outline::{outline, FunctionOutline};
use crate::{Analysis, Cancellable, FileId};

/// The hover text for a range of the file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HoverResult {
    /// The hovered word (byte offsets).
    pub start: u32,
    pub end: u32,
    /// Markdown.
    pub markdown: String,
}

impl Analysis {
    /// What zy knows about the word at `offset`, if anything.
    pub fn hover(&self, file: FileId, offset: u32) -> Cancellable<Option<HoverResult>> {
        self.with_db(|db| hover(db, file.0, offset))
    }
}

fn hover(db: &RootDatabase, file: SourceFile, offset: u32) -> Option<HoverResult> {
    let (start, end) = word_at(file.text(db), offset)?;
    let functions = outline(db, file);
    let function = functions.iter().find(|f| f.contains(offset));
    let markdown = match crate::field::receiver(db, file, start) {
        Some(receiver) => {
            let typed = function.and_then(|f| hover_specialisation(db, file, f));
            let field = &file.text(db)[start..end];
            crate::field::hover(db, file, start, receiver, field, function, typed.as_ref())?
        }
        None => name_hover(db, file, function, start, end)?,
    };
    Some(HoverResult {
        start: start as u32,
        end: end as u32,
        markdown,
    })
}

/// The hover on a name that is not a field: its docstrings, then what zy knows about it.
fn name_hover(
    db: &RootDatabase,
    file: SourceFile,
    function: Option<&FunctionOutline>,
    start: usize,
    end: usize,
) -> Option<String> {
    let (own, local) = match function {
        Some(f) => in_function(db, file, f, start, end),
        None => (None, false),
    };
    // A local's name is not the global's it may share.
    let docs = if local {
        None
    } else {
        let docs = crate::docs::documentation(db, file, start, end);
        let alias = alias_hover(db, file, start, end);
        match (docs, alias) {
            (Some(docs), Some(alias)) => Some(format!("{alias}{}{docs}", crate::docs::RULE)),
            (docs, alias) => alias.or(docs),
        }
    };
    match (docs, own) {
        (Some(docs), Some(own)) => Some(format!("{docs}{}{own}", crate::docs::RULE)),
        (docs, own) => docs.or(own),
    }
}

/// The definition of the type alias named at `start..end` (`const FVec = Vector{Float64}`),
/// if the name is one.
fn alias_hover(db: &RootDatabase, file: SourceFile, start: usize, end: usize) -> Option<String> {
    let definitions: Vec<String> = crate::definition::defining_items(db, file, start, end)
        .into_iter()
        .filter_map(|(item, _, _)| {
            let ast = zy_hir::item_ast(db, item).as_ref()?;
            let zy_syntax::ast::Item::Struct(s) = &**ast else {
                return None;
            };
            let target = s.alias.as_ref()?;
            let bounded = |p: &String| match s.param_bounds.iter().find(|(q, _)| q == p) {
                Some((_, bound)) => format!("{p}<:{}", bound.value_text()),
                None => p.clone(),
            };
            let params = match s.params.as_slice() {
                [] => String::new(),
                ps => format!(
                    "{{{}}}",
                    ps.iter().map(bounded).collect::<Vec<_>>().join(", ")
                ),
            };
            Some(format!(
                "```julia\nconst {}{params} = {}\n```\ntype alias",
                s.name,
                target.value_text()
            ))
        })
        .collect();
    (!definitions.is_empty()).then(|| definitions.join(crate::docs::RULE))
}

/// What zy knows about the word at `start..end` inside function `f`, and whether the word is
/// one of `f`'s locals.
fn in_function(
    db: &RootDatabase,
    file: SourceFile,
    f: &FunctionOutline,
    start: usize,
    end: usize,
) -> (Option<String>, bool) {
    let text = file.text(db);
    let word = &text[start..end];
    let typed = hover_specialisation(db, file, f);
    if (start as u32) >= f.name_start && (end as u32) <= f.name_end {
        (Some(function_hover(f, typed.as_ref())), false)
    } else if text[end..].starts_with('(') || text[end..].starts_with(".(") {
        (Some(call_hover(db, file, start, end)), false)
    } else if word == "for" || word == "while" {
        let tape = crate::checkpoint_hover::hover(db, file, word, start as u32, typed.as_ref())
            .unwrap_or_else(|| loop_hover(word, typed.as_ref()));
        (Some(tape), false)
    } else {
        let local = variable_hover(f, typed.as_ref(), word);
        let is_param = f.params.iter().any(|p| p.name.as_deref() == Some(word));
        let is_local = local.is_some() || is_param;
        (local, is_local)
    }
}

/// The body of `f` at its `# zy: at` call, with its activity analysis, as its gradient
/// differentiates them.
/// Borrowed from the database where it holds them: a hover on a long function copies none of
/// its IR.
pub(crate) struct Specialised<'db> {
    /// The body the gradient differentiates (differentiation calls expanded, generated code
    /// inlined); the typed body when a rule gives the adjoint or none can be built.
    pub func: Arc<Function>,
    /// The reaching-gradient facts of `func`.
    pub activity: Cow<'db, Activity>,
    pub call: String,
    /// Whether `call` is another function's annotation, which calls this one.
    pub through_caller: bool,
    /// The adjoint the gradient runs, or why there is none.
    pub adjoint: &'db Result<InstanceAdjoint, AdError>,
}

pub(crate) fn specialisation<'db>(
    db: &'db RootDatabase,
    file: SourceFile,
    f: &FunctionOutline,
) -> Option<Specialised<'db>> {
    specialised_at(db, file, f, f.at_call.as_ref()?, f)
}

/// How many callers' annotated calls a hover on a function without one of its own tries.
const CALLERS_TRIED: usize = 16;

/// The hover's specialisation of `f`: at its `# zy: at` call, else at its `# zy: gradcheck`
/// call, else as the nearest function with either annotation in the file calls it (a helper
/// `horner(c, x)` under `# zy: gradcheck fit(...)` of a function calling it), so that a helper
/// shows its types without an annotation of its own.
pub(crate) fn hover_specialisation<'db>(
    db: &'db RootDatabase,
    file: SourceFile,
    f: &FunctionOutline,
) -> Option<Specialised<'db>> {
    if let Some(call) = f.at_call.as_ref().or(f.gradcheck_call.as_ref()) {
        return specialised_at(db, file, f, call, f);
    }
    if let Some(s) = specialised_as_annotated(db, file, f, f) {
        return Some(s);
    }
    let mut callers: Vec<FunctionOutline> = outline(db, file)
        .into_iter()
        .filter(|g| g.name != f.name)
        .collect();
    callers.sort_by_key(|g| g.start.abs_diff(f.start));
    callers.iter().take(CALLERS_TRIED).find_map(|g| {
        let mut s = match g.at_call.as_ref().or(g.gradcheck_call.as_ref()) {
            Some(call) => specialised_at(db, file, g, call, f)?,
            None => specialised_as_annotated(db, file, g, f)?,
        };
        s.through_caller = true;
        Some(s)
    })
}

/// The instance of `f` in the typed program of `call`, the call annotating `g` (`f` itself, or
/// a function calling it).
fn specialised_at<'db>(
    db: &'db RootDatabase,
    file: SourceFile,
    g: &FunctionOutline,
    call: &str,
    f: &FunctionOutline,
) -> Option<Specialised<'db>> {
    let expr = zy_syntax::parse_expr(call).ok()?;
    let module = zy_hir::module_at(db, file, g.name_start);
    let typed = zy_hir::type_call_in(db, file, &module, &expr).ok()?;
    // A function of a module (also of a file the module includes) is named by it.
    let (inst, func) = instance_of(db, file, &typed.program, f)?;
    Some(specialised(db, typed.id(db, inst), func, call.to_string()))
}

/// The instance of `f` in the typed program of `g` (`f` itself, or a function calling it) at
/// `g`'s parameter annotations where each is a concrete type (`W::Matrix{Float64}`,
/// `x::Float64`), as `check` types such a function.
fn specialised_as_annotated<'db>(
    db: &'db RootDatabase,
    file: SourceFile,
    g: &FunctionOutline,
    f: &FunctionOutline,
) -> Option<Specialised<'db>> {
    let item = zy_hir::item_tree(db, file).iter().copied().find(|&i| {
        i.kind(db) == zy_hir::ItemKind::Function
            && match zy_hir::item_ast(db, i).as_deref() {
                Some(zy_syntax::ast::Item::Function(d)) => {
                    let at = zy_hir::item_range(db, i, d.name_range.start, d.name_range.end);
                    at.is_some_and(|(start, _)| start == g.name_start)
                }
                _ => false,
            }
    })?;
    let inst = crate::annotated::annotated_instances(db, file, item)
        .into_iter()
        .next()?;
    let key = zy_hir::ProgramKey::of(db, file);
    let (program, errors) = zy_hir::typed_program(db, key, std::slice::from_ref(&inst));
    if !errors.is_empty() {
        return None;
    }
    let types: Vec<String> = inst.args.iter().map(|t| format!("::{t}")).collect();
    let call = format!("{}({})", g.name, types.join(", "));
    let (inst, func) = instance_of(db, file, &program, f)?;
    let id = zy_hir::InstanceId::in_program(db, key, inst);
    Some(specialised(db, id, func, call))
}

/// A specialisation of `f` (named by its module where it is in one) in `program`.
fn instance_of<'p>(
    db: &RootDatabase,
    file: SourceFile,
    program: &'p zy_ir::TypedProgram,
    f: &FunctionOutline,
) -> Option<(&'p Arc<zy_ir::Instance>, &'p Arc<Function>)> {
    let name = f.name.as_str();
    let qualified = zy_hir::qualify(&zy_hir::module_at(db, file, f.name_start), name);
    program
        .functions
        .iter()
        .find(|(inst, _)| *inst.name == *name || inst.name == qualified)
}

/// The specialisation `id` with its typed body `func`, shown as typed at `call`: its adjoint
/// and what a gradient reaches in it.
fn specialised<'db>(
    db: &'db RootDatabase,
    id: zy_hir::InstanceId,
    func: &Arc<Function>,
    call: String,
) -> Specialised<'db> {
    let key = AdjointKey::of(db, id);
    let adjoint = zy_hir::adjoint(db, key);
    let (func, activity) = match (adjoint, zy_hir::reaching(db, key)) {
        (
            Ok(InstanceAdjoint {
                origin: AdjointOrigin::Derived { body },
                ..
            }),
            Some(activity),
        ) => (body.clone(), Cow::Borrowed(activity)),
        _ => (func.clone(), Cow::Owned(analyse(func))),
    };
    Specialised {
        func,
        activity,
        call,
        through_caller: false,
        adjoint,
    }
}

impl Specialised<'_> {
    /// The type of the gradient `grad` returns for argument `i`: `Nothing` where no gradient
    /// reaches it, whatever its type.
    pub(crate) fn gradient_type(&self, i: usize) -> Type {
        match (self.activity.args.get(i), self.func.args().get(i)) {
            (Some(ArgGradient::NoPath | ArgGradient::Cut { .. }), _) | (_, None) => Type::Nothing,
            (_, Some(&a)) => tangent_type(self.func.ty(a)),
        }
    }
}

fn function_hover(f: &FunctionOutline, typed: Option<&Specialised>) -> String {
    let Some(s) = typed else {
        return format!(
            "```julia\n{}\n```\nNo specialisation: add `# zy: at {}(...)` above the definition to see types and gradients.",
            f.name, f.name
        );
    };
    let args: Vec<String> = s
        .func
        .args()
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let name = s
                .func
                .arg_names
                .get(i)
                .map(|n| n.to_string())
                .unwrap_or_default();
            format!("{name}::{}", s.func.ty(a))
        })
        .collect();
    let grads: Vec<String> = (0..s.func.args().len())
        .map(|i| s.gradient_type(i).to_string())
        .collect();
    let at = if s.through_caller {
        format!("specialised as `{}` calls it", s.call)
    } else {
        format!("specialised at `{}`", s.call)
    };
    let mut md = format!(
        "```julia\n{}({}) -> {}\n```\n{at}\n\ngradient: `Tuple{{{}}}`",
        f.name,
        args.join(", "),
        s.func.ret,
        grads.join(", ")
    );
    for (i, why) in s.activity.args.iter().enumerate() {
        let name = s
            .func
            .arg_names
            .get(i)
            .map(|n| n.to_string())
            .unwrap_or_default();
        let line = match why {
            ArgGradient::Reaches => continue,
            ArgGradient::NotDifferentiable => format!("`{name}`: not differentiable (`nothing`)"),
            ArgGradient::NoPath => format!("`{name}`: no gradient reaches it (`nothing`)"),
            ArgGradient::Cut { op, .. } => {
                format!("`{name}`: gradient cut by `{}`", op.julia_name())
            }
        };
        md.push_str("\n\n");
        md.push_str(&line);
    }
    md
}

/// What the forward pass keeps per loop iteration for the pullback: the tuples it pushes.
fn loop_hover(word: &str, typed: Option<&Specialised>) -> String {
    match pushed_bytes(typed) {
        Ok((bytes, pushed)) if !pushed.is_empty() => {
            let what: Vec<String> = pushed.iter().map(|t| t.to_string()).collect();
            format!(
                "`{word}` loop: per iteration of its loops, the forward pass keeps {bytes} bytes for the pullback ({} push{}: {})",
                pushed.len(),
                if pushed.len() == 1 { "" } else { "es" },
                what.join(", ")
            )
        }
        Ok(_) => format!(
            "`{word}` loop: the forward pass keeps nothing per iteration for the pullback"
        ),
        Err(Why::NoCall) => format!("`{word}` loop: add `# zy: at` above the function to see what its adjoint keeps per iteration"),
        Err(Why::Error(call, message)) => {
            format!("`{word}` loop: not differentiable at `{call}`: {message}")
        }
        Err(Why::Rule) => format!(
            "`{word}` loop: the function is differentiated by its in-source `rrule`, so the forward pass keeps the rule's pullback, nothing per iteration"
        ),
    }
}

/// Why a loop's tape is not known.
pub(crate) enum Why {
    /// No `# zy: at` call.
    NoCall,
    /// The call and why its gradient cannot be built.
    Error(String, String),
    /// An in-source `rrule` gives the adjoint.
    Rule,
}

/// What the forward pass of `typed`'s adjoint pushes per iteration of its loops: bytes and the
/// pushed types.
pub(crate) fn pushed_bytes(typed: Option<&Specialised>) -> Result<(usize, Vec<Type>), Why> {
    let s = typed.ok_or(Why::NoCall)?;
    let adj = s
        .adjoint
        .as_ref()
        .map_err(|e| Why::Error(s.call.clone(), e.message.clone()))?;
    if let AdjointOrigin::Rule { .. } = adj.origin {
        return Err(Why::Rule);
    }
    let pushed = pushes(&adj.forward);
    Ok((pushed.iter().map(size_of).sum(), pushed))
}

/// The types `fwd` pushes on its stacks.
pub(crate) fn pushes(fwd: &Function) -> Vec<Type> {
    fwd.values
        .iter()
        .filter_map(|d| match &d.kind {
            ValueKind::Stmt(st) if st.op == Op::Prim(Prim::Push) => {
                st.args.get(1).map(|a| fwd.operand_ty(a))
            }
            _ => None,
        })
        .collect()
}

/// Bytes a value of type `t` takes on an AD stack (references are one pointer).
pub(crate) fn size_of(t: &Type) -> usize {
    match t {
        Type::Nothing | Type::Bottom => 0,
        Type::Bool => 1,
        Type::Tuple(ts) => ts.iter().map(size_of).sum(),
        Type::NamedTuple(fs) => fs.iter().map(|(_, t)| size_of(t)).sum(),
        _ => 8,
    }
}

fn variable_hover(f: &FunctionOutline, typed: Option<&Specialised>, word: &str) -> Option<String> {
    let s = typed?;
    let values: Vec<_> = s
        .func
        .values
        .iter()
        .enumerate()
        .filter(|(_, d)| d.name.as_deref() == Some(word) && d.span.file == s.func.span.file)
        .collect();
    if values.is_empty() {
        return None;
    }
    let types: BTreeSet<String> = values.iter().map(|(_, d)| d.ty.to_string()).collect();
    let ty = values[0].1.ty.clone();
    let mut md = format!(
        "```julia\n{word}::{}\n```",
        types.into_iter().collect::<Vec<_>>().join(" | "),
    );
    let active: Vec<usize> = values
        .iter()
        .map(|(i, _)| *i)
        .filter(|&i| s.activity.is_active(zy_ir::Value(i as u32)))
        .collect();
    // One story: the gradient type is given only where a gradient of that type arrives.
    let summary = if !ty.is_differentiable() {
        format!("`{ty}` is not differentiable: its gradient is `nothing`")
    } else if active.is_empty() {
        let why = match arg_reason(f, s, word) {
            Some(ArgGradient::Cut { op, .. }) => format!("gradient cut by `{}`", op.julia_name()),
            _ => "no gradient reaches this value".to_string(),
        };
        format!(
            "{why}: its gradient is `nothing` (a `{}` where one arrives)",
            tangent_type(&ty)
        )
    } else {
        md.push_str(&format!("\ngradient type: `{}`", tangent_type(&ty)));
        let uses: usize = active
            .iter()
            .map(|&i| s.activity.values[i].uses.len())
            .sum();
        let carried = active.iter().any(|&i| s.activity.values[i].loop_carried);
        format!(
            "a gradient reaches `{word}` from {uses} use{}{}",
            if uses == 1 { "" } else { "s" },
            if carried { "; loop-carried" } else { "" }
        )
    };
    md.push_str("\n\n");
    md.push_str(&summary);
    Some(md)
}

fn arg_reason<'a>(f: &FunctionOutline, s: &'a Specialised, word: &str) -> Option<&'a ArgGradient> {
    let i = f
        .params
        .iter()
        .position(|p| p.name.as_deref() == Some(word))?;
    s.activity.args.get(i)
}

/// What differentiates the call of the function named at `start..end` (`f`, `M.f`, a name
/// imported or renamed by `import M.f as g`), as the code there resolves it.
fn call_hover(db: &RootDatabase, file: SourceFile, start: usize, end: usize) -> String {
    let text = file.text(db);
    let word = &text[start..end];
    let index = zy_hir::program_index(db, file);
    let module = code_module(db, file, start as u32);
    let name = zy_hir::scope::scope_names(db, file).resolve(&module, dotted(text, start, end));
    let has_rrule = index.program.functions.get("rrule").is_some_and(|gf| {
        gf.methods
            .iter()
            .any(|m| matches!(m.sig.first(), Some(Some(TypeExpr::Typeof(n))) if *n == name))
    });
    if has_rrule {
        return format!(
            "`{word}` is differentiated by the in-source `rrule(::typeof({word}), ...)`"
        );
    }
    let defs = defining_items(db, file, start, end);
    let in_library = !defs.is_empty()
        && defs
            .iter()
            .all(|&(item, ..)| zy_hir::is_prelude(db, item.file(db)));
    let primitive = Prim::from_julia_name(word).filter(|p| !p.is_nondifferentiable());
    if in_library && index.program.functions.contains_key(&name) && primitive.is_some() {
        // A primitive the library also gives Julia methods (`sin` of a complex number).
        return format!(
            "`{word}` is differentiated by zy's primitive rule on real numbers; its methods for other types in zy's library, `{name}`, are transformed like your code"
        );
    }
    if in_library && index.program.functions.contains_key(&name) {
        return format!(
            "`{word}` is differentiated through its definition in zy's library, `{name}`, which zy transforms like your code"
        );
    }
    if index.program.functions.contains_key(&name) {
        // A function of a module, or renamed where it is imported, is named in full.
        let qualified = if *name == *word {
            String::new()
        } else {
            format!(" (`{name}`)")
        };
        return format!(
            "`{word}`{qualified} is differentiated by its derived adjoint (zy transforms its body)"
        );
    }
    match Prim::from_julia_name(word) {
        Some(p) if p.is_nondifferentiable() => {
            format!("`{word}` is a primitive with zero gradient: it cuts the gradient")
        }
        Some(_) => format!("`{word}` is differentiated by zy's primitive rule"),
        None if matches!(word, "map" | "sum" | "broadcast") => {
            format!("`{word}` with a function is differentiated as a loop over its elements")
        }
        None => format!("`{word}`"),
    }
}

/// The identifier around byte `offset` (a cursor just after a word hovers it).
pub(crate) fn word_at(text: &str, offset: u32) -> Option<(usize, usize)> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '!' || c == '∇' || is_mark(c);
    let mut at = (offset as usize).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_ident(c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = at
        + text[at..]
            .chars()
            .take_while(|&c| is_ident(c))
            .map(char::len_utf8)
            .sum::<usize>();
    let word = &text[start..end];
    (start < end && !word.starts_with(|c: char| c.is_ascii_digit())).then_some((start, end))
}

/// Combining marks (`x̄`, `ȳ` written with U+0304) belong to the identifier they decorate.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF)
        || matches!(c, '₀'..='₉' | '′')
}

#[cfg(test)]
mod tests {
    use super::word_at;

    #[test]
    fn words_include_unicode_and_marks() {
        let text = "ȳ = x̄ + ∇f(2)";
        let x = text.find('x').unwrap() as u32;
        let (s, e) = word_at(text, x).unwrap();
        assert_eq!(&text[s..e], "x̄");
        assert_eq!(word_at(text, 0).map(|(s, e)| &text[s..e]), Some("ȳ"));
        assert_eq!(word_at(text, text.find('2').unwrap() as u32), None);
    }
}
