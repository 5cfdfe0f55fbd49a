//! Indexes the prelude's top-level items at build time, so that a fresh database knows every
//! prelude definition's name without parsing the prelude, and parses an item's text only when
//! something reads that item ([`crate::item`] in `src/item.rs`). Writes `$OUT_DIR/bundled.rs`:
//! for each prelude file, its flattened items (as `item_tree` lists them) with the byte range
//! of the text that parses to each on its own, and its signature's type names
//! ([`signature`] in `src/signature.rs`), so that a library method that can never apply is
//! not even parsed; for an item that lowers to one plain method, that method's signature
//! and the names its body uses (`BundledMethod` in `src/stub.rs`), so that a program holds it
//! without parsing or lowering it until inference specialises it; and each item's untyped SSA,
//! packed into `$OUT_DIR/lowered.bin` (postcard's encoding of the IR's serde derives, read back
//! by `src/unpack.rs`), so that a process lowers no library item at all; and what the scope
//! reads of each binding's value and each `export` (`src/binding.rs`), so that a process
//! parses neither. Each item's lowering is packed a second time resolved in the prelude's own
//! scope (`prelude_scope`, through `src/scope_names.rs` and `src/resolve.rs`), which a program
//! whose files leave the library's names as they are reads as it is
//! (`ScopeNames::library_as_built`), so that a process resolves no library item it reads whole;
//! and so is each signature's type names (`BundledItem::resolved_sig`). That scope itself is
//! packed into `$OUT_DIR/prelude_names.bin`, from which such a program's scope starts
//! (`root_names` in `src/scope.rs`), so that a process does not list the library's items to
//! build it.
//! `bundled_items_parse_alone` checks that each range parses to the same item as the whole
//! file does, that the signatures are those of the item lowered alone, and that each packed
//! lowering reads back as that lowering.

use std::fmt::Write;
use std::path::PathBuf;

use zy_ir::{Const, Function, Op, Operand, TypeExpr, ValueKind};
use zy_syntax::ast::Item;

#[path = "src/binding.rs"]
mod binding;
#[path = "src/encode.rs"]
#[allow(dead_code)]
mod encode;
#[path = "src/item_kind.rs"]
mod item_kind;
#[path = "src/prelude.rs"]
#[allow(dead_code)]
mod prelude;
#[path = "src/resolve.rs"]
#[allow(dead_code)]
mod resolve;
#[path = "src/scope_names.rs"]
#[allow(dead_code)]
mod scope_names;
#[path = "src/signature.rs"]
mod signature;
#[path = "src/unpack.rs"]
#[allow(dead_code)]
mod unpack;

fn main() {
    println!("cargo:rerun-if-changed=prelude");
    for f in [
        "src/binding.rs",
        "src/encode.rs",
        "src/item_kind.rs",
        "src/prelude.rs",
        "src/resolve.rs",
        "src/scope_names.rs",
        "src/signature.rs",
        "src/stub.rs",
        "src/unpack.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let mut out = String::from("&[\n");
    // The items' lowerings, packed one after another (`src/unpack.rs`).
    let mut packed = Vec::new();
    // How many methods of each name come before each function item (`method_ordinals`).
    let mut ordinals = std::collections::HashMap::new();
    let parsed: Vec<_> = prelude::PRELUDE
        .iter()
        .map(|file| {
            // No time budget: a build under load (an unoptimised build script on a busy
            // machine) ran out of the default one and indexed no items of the later files.
            let unbounded = zy_syntax::ParseBudget::fixed(std::time::Duration::from_secs(86_400));
            zy_syntax::parse_file_with_budget(file.text, unbounded)
        })
        .collect();
    let files: Vec<_> = parsed
        .iter()
        .map(|parsed| {
            let mut items = Vec::new();
            let mut cursor = 0;
            walk(&parsed.items, "", &mut cursor, &mut items);
            items
        })
        .collect();
    let names = prelude_scope(&files);
    for (file, items) in prelude::PRELUDE.iter().zip(files) {
        out.push_str("    &[\n");
        // How many items of the same module, kind and name come before each (`ItemId::nth`).
        let mut seen = std::collections::HashMap::new();
        for (module, item, start, end, nth) in items {
            let (kind, name) = item_kind::kind_and_name(item);
            let rank = seen
                .entry((module.clone(), kind, name.clone()))
                .or_insert(0u32);
            let same = *rank;
            *rank += 1;
            let lowered = match item {
                Item::Function(def) => zy_lower::lower_method(0, def, 0),
                Item::Struct(def) => zy_lower::lower_struct(0, def),
                _ => Default::default(),
            };
            let sig = signature::signature(&lowered);
            // The same names resolved in the item's module of the prelude's own scope.
            let full_module = scope_names::join(file.module, &module);
            let resolved_names: Vec<Vec<String>> = [&sig.guards, &sig.type_values, &sig.types]
                .iter()
                .map(|ns| {
                    ns.iter()
                        .map(|n| names.resolve(&full_module, n).to_string())
                        .collect()
                })
                .collect();
            let as_strs =
                |i: usize| -> Vec<&str> { resolved_names[i].iter().map(String::as_str).collect() };
            let resolved_subject = sig
                .subject
                .map(|f| names.resolve(&full_module, f).to_string());
            let resolved_sig = signature::Signature {
                guards: as_strs(0).into(),
                type_values: as_strs(1).into(),
                types: as_strs(2).into(),
                subject: resolved_subject.as_deref(),
                ..sig.clone()
            };
            // The name `prelude_items` (`src/program.rs`) keys a definition by: an in-source
            // rule by the function it is for.
            let key = matches!(
                kind,
                item_kind::ItemKind::Function
                    | item_kind::ItemKind::Struct
                    | item_kind::ItemKind::Global
            )
            .then(|| {
                let key = names.definition(&full_module, &name);
                match resolved_sig.subject {
                    Some(f) if ["rrule", "frule"].contains(&&*key) => f.to_string(),
                    _ => key.to_string(),
                }
            });
            let bare = matches!(item, Item::Module(m) if m.bare);
            let ordinal = match kind {
                item_kind::ItemKind::Function => {
                    let n = ordinals.entry(name.clone()).or_insert(0u32);
                    *n += 1;
                    *n - 1
                }
                _ => 0,
            };
            let mut pack = |item: &zy_lower::LoweredItem| {
                let bytes = postcard::to_allocvec(&(&item.methods, &item.structs, &item.globals));
                bytes.ok().map(|bytes| {
                    let start = packed.len();
                    packed.extend(bytes);
                    (start, packed.len())
                })
            };
            let unresolved = lowering(item, ordinal);
            let lowered = unresolved.as_ref().and_then(&mut pack);
            let resolved = unresolved.and_then(|u| {
                let module = scope_names::join(file.module, &module);
                pack(&resolve::resolve_owned(u, &module, &names))
            });
            let binding = match item {
                Item::Global(g) => {
                    let makers = binding::settled_makers(&g.value)
                        .map_or("None".to_string(), |ms| format!("Some(&{ms:?})"));
                    let dotted = binding::dotted_name(&g.value);
                    format!("Some(BundledBinding {{ makers: {makers}, dotted: {dotted:?} }})")
                }
                _ => "None".to_string(),
            };
            let immutable = matches!(item, Item::Struct(def) if binding::immutable_struct(def));
            let exports = match item {
                Item::Export(e) => e.names.clone(),
                _ => Vec::new(),
            };
            let _ = writeln!(
                out,
                "        BundledItem {{ module: {module:?}, kind: ItemKind::{kind:?}, name: {name:?}, same: {same}, bare: {bare}, start: {start}, end: {end}, nth: {nth}, sig: {}, resolved_sig: {}, method: {}, lowered: {lowered:?}, resolved: {resolved:?}, binding: {binding}, immutable: {immutable}, exports: &{exports:?}, key: {key:?} }},",
                static_signature(&sig),
                static_signature(&resolved_sig),
                bundled_method(item),
            );
        }
        out.push_str("    ],\n");
    }
    out.push_str("]\n");
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dir.join("bundled.rs"), out).expect("OUT_DIR is writable");
    std::fs::write(dir.join("lowered.bin"), packed).expect("OUT_DIR is writable");
    let scope = postcard::to_allocvec(&names).expect("the prelude's scope packs");
    std::fs::write(dir.join("prelude_names.bin"), scope).expect("OUT_DIR is writable");
}

/// `sig` as `Signature` code.
fn static_signature(sig: &signature::Signature) -> String {
    format!(
        "Signature {{ guards: Cow::Borrowed(&{:?}), type_values: Cow::Borrowed(&{:?}), types: Cow::Borrowed(&{:?}), high_rank: {}, concrete: {}, subject: {:?} }}",
        sig.guards, sig.type_values, sig.types, sig.high_rank, sig.concrete, sig.subject,
    )
}

/// The prelude's own scope: its modules with what each defines and sees, built in the order
/// `root_names` (`src/scope.rs`) builds a program's, from the prelude's items alone (it has
/// no refused definitions and no top-level statements).
fn prelude_scope(files: &[Vec<(String, &Item, u32, u32, u32)>]) -> scope_names::ModuleNames {
    let mut names = scope_names::ModuleNames::default();
    let items = || {
        prelude::PRELUDE
            .iter()
            .zip(files)
            .flat_map(|(file, items)| {
                items
                    .iter()
                    .map(|(module, item, ..)| (scope_names::join(file.module, module), *item))
            })
    };
    for file in prelude::PRELUDE {
        names.modules.entry(file.module.into()).or_default();
    }
    for (module, item) in items() {
        if let Item::Module(m) = item {
            names.add_module(&module, &m.name);
        }
    }
    names.see_base(|_| true);
    for (module, item) in items() {
        match item {
            Item::Module(m) if m.bare => names.make_bare(&scope_names::join(&module, &m.name)),
            _ => {}
        }
    }
    for (module, item) in items() {
        if let Item::Import(i) = item {
            // An import that names nothing is reported where the prelude's code is checked.
            let _ = scope_names::add_import(&mut names, &module, i);
        }
    }
    for (module, item) in items() {
        if let Item::Global(g) = item {
            if let Some(dotted) = binding::dotted_name(&g.value) {
                names.add_alias(&module, &g.name, &dotted);
            }
        }
    }
    for (module, item) in items() {
        let (kind, name) = item_kind::kind_and_name(item);
        let settled = match item {
            Item::Global(g) => binding::settled_makers(&g.value)
                .is_some_and(|ms| names.all_immutable_structs(&module, &ms[..])),
            Item::Struct(def) => binding::immutable_struct(def),
            _ => false,
        };
        if matches!(
            kind,
            item_kind::ItemKind::Function
                | item_kind::ItemKind::Struct
                | item_kind::ItemKind::Global
        ) {
            names.add_definition(&module, kind, &name.as_str().into(), settled);
        }
    }
    for (module, item) in items() {
        if let Item::Export(e) = item {
            names.add_exports(&module, e.names.iter().map(|n| n.as_str().into()));
        }
    }
    names
}

/// The untyped SSA of `item` as `ssa` lowers it (from its rank encoding, its spans in
/// [`unpack::ITEM_FILE`]). `None` if lowering refused it (then it is lowered when read).
fn lowering(item: &Item, ordinal: u32) -> Option<zy_lower::LoweredItem> {
    let file = unpack::ITEM_FILE;
    let lowered = match item {
        Item::Function(_) | Item::Struct(_) | Item::Global(_) => {
            match &*encode::encode_item(item.clone(), 0).item {
                Item::Function(def) => zy_lower::lower_method(file, def, ordinal),
                Item::Struct(def) => zy_lower::lower_struct(file, def),
                Item::Global(def) => zy_lower::lower_global(file, def),
                _ => return None,
            }
        }
        _ => Default::default(),
    };
    lowered.errors.is_empty().then_some(lowered)
}

/// `Some(BundledMethod { .. })` for a function item that lowers to one plain method (no
/// closures, keywords, optional arguments or errors) whose body reads no module's member
/// (`M.f`, which resolution rewrites by the scope), else `None`. Lowered from the item's rank
/// encoding, as `ssa` lowers it, so that the spans are the same.
fn bundled_method(item: &Item) -> String {
    let none = || "None".to_string();
    if !matches!(item, Item::Function(_)) {
        return none();
    }
    let encoded = encode::encode_item(item.clone(), 0);
    let Item::Function(def) = &*encoded.item else {
        return none();
    };
    let lowered = zy_lower::lower_method(0, def, 0);
    let [(generic, method)] = lowered.methods.as_slice() else {
        return none();
    };
    if !lowered.structs.is_empty()
        || !lowered.globals.is_empty()
        || !lowered.errors.is_empty()
        || method.keywords.is_some()
        || closure_or_module_member(&method.body)
    {
        return none();
    }
    let sig: Vec<String> = method
        .sig
        .iter()
        .map(|t| {
            t.as_ref()
                .map_or_else(none, |t| format!("Some({})", static_type(t)))
        })
        .collect();
    let bounds: Vec<String> = method
        .where_bounds
        .iter()
        .map(|(p, t)| format!("({:?}, {})", &**p, static_type(t)))
        .collect();
    let params: Vec<&str> = method.where_params.iter().map(|p| &**p).collect();
    let mut uses: Vec<String> = Vec::new();
    body_uses(&method.body, &mut |kind, name| {
        let u = format!("(Use::{kind}, {name:?})");
        if !uses.contains(&u) {
            uses.push(u);
        }
    });
    format!(
        "Some(BundledMethod {{ generic: {:?}, sig: &[{}], where_params: &{params:?}, where_bounds: &[{}], span: ({}, {}), uses: &[{}] }})",
        &**generic,
        sig.join(", "),
        bounds.join(", "),
        method.span.start,
        method.span.end,
        uses.join(", ")
    )
}

/// `t` as `StaticType` code.
fn static_type(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Named { name, params } => {
            let params: Vec<String> = params.iter().map(static_type).collect();
            format!("StaticType::Named({:?}, &[{}])", &**name, params.join(", "))
        }
        TypeExpr::Typeof(name) => format!("StaticType::Typeof({:?})", &**name),
    }
}

/// Whether `body` makes a closure, or reads a field of a loaded binding (`M.f`),
/// which resolution turns into the module's member when the binding is a module.
fn closure_or_module_member(body: &Function) -> bool {
    body.values.iter().any(|v| match &v.kind {
        ValueKind::Stmt(s) => {
            matches!(s.op, Op::Closure(_))
                || matches!(&s.op, Op::Call(n)
                    if &**n == "getfield" || &**n == zy_lower::GETPROPERTY)
                && matches!(s.args.as_slice(), [Operand::Value(base), Operand::Const(Const::Symbol(_))]
                    if body.stmt(*base).is_some_and(|b| matches!(b.op, Op::Global(_))))
        }
        ValueKind::Param { .. } => false,
    })
}

/// Every name `body` mentions, with how (`Use` in `src/stub.rs`), in the order that
/// `item_names` in `src/reach.rs` meets them.
fn body_uses(body: &Function, f: &mut impl FnMut(&str, &str)) {
    fn consts(c: &Const, f: &mut impl FnMut(&str, &str)) {
        match c {
            Const::Func(n) => f("Func", n),
            Const::Tuple(cs) => cs.iter().for_each(|c| consts(c, f)),
            _ => {}
        }
    }
    for v in &body.values {
        let ValueKind::Stmt(s) = &v.kind else {
            continue;
        };
        match &s.op {
            Op::Call(n) => f("Call", n),
            Op::Global(n) => f("Global", n),
            _ => {}
        }
        for a in &s.args {
            if let Operand::Const(c) = a {
                consts(c, f);
            }
        }
    }
    for b in &body.blocks {
        for a in b.term.operands() {
            if let Operand::Const(c) = a {
                consts(c, f);
            }
        }
    }
}

/// The items in `flat_items`' order, each with its module path, the range of its text (from
/// where the previous item, or the module's name, ends to its own end, so that comments and
/// annotations before it come along) and its position among the items that text parses to:
/// an inner constructor, which ends inside its struct, is the struct's text's item after the
/// struct and the constructors before it.
fn walk<'a>(
    items: &'a [Item],
    module: &str,
    cursor: &mut u32,
    out: &mut Vec<(String, &'a Item, u32, u32, u32)>,
) {
    // The range of the last item that was not an inner constructor, and how many follow it.
    let mut last = (*cursor, *cursor, 0);
    for item in items {
        let end = extent(item).1;
        if end <= *cursor && !matches!(item, Item::Module(_)) {
            last.2 += 1;
            out.push((module.to_string(), item, last.0, last.1, last.2));
            continue;
        }
        last = (*cursor, end, 0);
        out.push((module.to_string(), item, *cursor, end, 0));
        if let Item::Module(m) = item {
            let inner = if module.is_empty() {
                m.name.clone()
            } else {
                format!("{module}.{}", m.name)
            };
            *cursor = m.name_range.end;
            walk(&m.items, &inner, cursor, out);
        }
        *cursor = end;
    }
}

/// The first and last offsets of `item`'s ranges.
fn extent(item: &Item) -> (u32, u32) {
    let b = encode::encode_item(item.clone(), 0).boundaries;
    (
        b.first().copied().unwrap_or(0),
        b.last().copied().unwrap_or(0),
    )
}
