//! `@kwdef struct ... end` (and `Base.@kwdef`): the struct, with its default constructor, and
//! a keyword constructor `S(; a = default, b) = S(a, b)`. A field without a default is a
//! required keyword; a default sees the fields before it; the default constructor converts
//! the values to the field types, as in Julia.

use crate::ast::{Expr, ExprKind, FunctionDef, FunctionName, Item, KeywordParam, StructDef};
use crate::cx::Cx;
use crate::items::struct_definition;
use crate::tree::SyntaxNode;

/// The struct `node` defines and its keyword constructor (none for a struct without fields,
/// whose default constructor already takes no arguments).
pub(crate) fn items(cx: &mut Cx, node: &SyntaxNode) -> Vec<Item> {
    let mut defaults = Vec::new();
    let Some(def) = struct_definition(cx, node, Some(&mut defaults)) else {
        return Vec::new();
    };
    let constructor = (!def.fields.is_empty()).then(|| keyword_constructor(&def, defaults));
    let mut items = vec![Item::Struct(def)];
    items.extend(constructor.map(Item::Function));
    items
}

/// `S(; a = default, b) = S(a, b)`, one keyword per field, in order.
fn keyword_constructor(def: &StructDef, defaults: Vec<Option<Expr>>) -> FunctionDef {
    let keywords = def
        .fields
        .iter()
        .zip(defaults)
        .map(|(field, default)| KeywordParam {
            name: field.name.clone(),
            ty: None,
            default,
            range: field.range,
        })
        .collect();
    let args = def
        .fields
        .iter()
        .map(|field| Expr::new(ExprKind::Ident(field.name.clone()), field.range))
        .collect();
    let callee = Expr::new(ExprKind::Ident(def.name.clone()), def.name_range);
    let call = ExprKind::Call {
        callee: Box::new(callee),
        args,
    };
    FunctionDef {
        name: FunctionName::Named(def.name.clone()),
        name_range: def.name_range,
        params: Vec::new(),
        keywords,
        keyword_rest: None,
        where_params: Vec::new(),
        return_type: None,
        body: vec![Expr::new(call, def.range)],
        range: def.range,
        annotations: Vec::new(),
    }
}
