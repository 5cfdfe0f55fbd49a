//! Indexes the prelude's top-level items at build time, so that a fresh database knows every
//! prelude definition's name without parsing the prelude, and parses an item's text only when
//! something reads that item ([`crate::item`] in `src/item.rs`). Writes `$OUT_DIR/bundled.rs`:
//! for each prelude file, its flattened items (as `item_tree` lists them) with the byte range
//! of the text that parses to each on its own, and its signature's type names
//! ([`signature`] in `src/signature.rs`), so that a library method that can never apply is
//! not even parsed. `bundled_items_parse_alone` checks that each range parses to the same item
//! as the whole file does, and that the signatures are those of the item lowered alone.

use std::fmt::Write;
use std::path::PathBuf;

use zy_syntax::ast::Item;

#[path = "src/encode.rs"]
#[allow(dead_code)]
mod encode;
#[path = "src/item_kind.rs"]
mod item_kind;
#[path = "src/prelude.rs"]
#[allow(dead_code)]
mod prelude;
#[path = "src/signature.rs"]
mod signature;

fn main() {
    println!("cargo:rerun-if-changed=prelude");
    for f in [
        "src/encode.rs",
        "src/item_kind.rs",
        "src/prelude.rs",
        "src/signature.rs",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    let mut out = String::from("&[\n");
    for file in prelude::PRELUDE {
        let parsed = zy_syntax::parse_file(file.text);
        let mut items = Vec::new();
        let mut cursor = 0;
        walk(&parsed.items, "", &mut cursor, &mut items);
        out.push_str("    &[\n");
        for (module, item, start, end, nth) in items {
            let (kind, name) = item_kind::kind_and_name(item);
            let lowered = match item {
                Item::Function(def) => zy_lower::lower_method(0, def, 0),
                Item::Struct(def) => zy_lower::lower_struct(0, def),
                _ => Default::default(),
            };
            let sig = signature::signature(&lowered);
            let _ = writeln!(
                out,
                "        BundledItem {{ module: {module:?}, kind: ItemKind::{kind:?}, name: {name:?}, start: {start}, end: {end}, nth: {nth}, sig: Signature {{ guards: Cow::Borrowed(&{:?}), type_values: Cow::Borrowed(&{:?}), types: Cow::Borrowed(&{:?}), high_rank: {}, concrete: {}, subject: {:?} }} }},",
                sig.guards, sig.type_values, sig.types, sig.high_rank, sig.concrete, sig.subject
            );
        }
        out.push_str("    ],\n");
    }
    out.push_str("]\n");
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dir.join("bundled.rs"), out).expect("OUT_DIR is writable");
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
