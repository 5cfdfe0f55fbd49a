//! `@enum T a b c` (and `@enum T a = 1 b`, `@enum T::Int8 begin ... end`): a struct
//! `T <: Base.Enum` holding its value as an `Int`, an inner constructor that refuses any other
//! value (Julia's `ArgumentError`), a constant per name, and the tables the prelude's `Enum`
//! methods read: `instances(::Type{T})` and `Base._enum_names(::Type{T})`, and its `show`.

use crate::ast::{
    Expr, ExprKind, FieldDef, FunctionDef, FunctionName, GlobalDef, Item, Param, RefusedDef,
    StructDef, TextRange, TypeExpr, UnOp, NEW,
};
use crate::cx::Cx;
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The items `@enum` defines, if `node` is one; once a part of it is refused, its names refused.
pub(crate) fn items(cx: &mut Cx, node: &SyntaxNode) -> Option<Vec<Item>> {
    let [macro_name, ty, values @ ..] = node.children.as_slice() else {
        return None;
    };
    if node.leaf
        || node.kind != Kind::MacroCall
        || !matches!(cx.text(macro_name), "@enum" | "Base.@enum")
    {
        return None;
    }
    // `T::Int8`: the base type only sets the width Julia stores the value in.
    let ty = match (ty.leaf, ty.kind, ty.children.as_slice()) {
        (false, Kind::Decl, [name, _]) => name,
        _ => ty,
    };
    if !(ty.leaf && ty.kind == Kind::Identifier) {
        cx.unsupported(ty, "`@enum` type name");
        return Some(Vec::new());
    }
    let mut members = Vec::new();
    let mut next = 0;
    let complete = values
        .iter()
        .all(|v| members_of(cx, v, &mut next, &mut members));
    if complete && members.is_empty() {
        cx.unsupported(node, "`@enum` without values");
    }
    if !complete || members.is_empty() {
        // The type and the names before the refused part say why where they are used.
        let reason = cx
            .errors
            .last()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        let names =
            std::iter::once(cx.text(ty).to_string()).chain(members.into_iter().map(|m| m.0));
        let refused = names.map(|name| {
            Item::Refused(RefusedDef {
                name,
                reason: reason.clone(),
                range: node.range,
            })
        });
        return Some(refused.collect());
    }
    let def = Enum {
        name: cx.text(ty).to_string(),
        name_range: ty.range,
        members,
        range: node.range,
    };
    Some(def.items())
}

/// Collects the members `node` names (`a`, `a = 1`, or a `begin ... end` of them), numbering
/// the ones without a value after the previous; false once one is refused.
fn members_of(
    cx: &mut Cx,
    node: &SyntaxNode,
    next: &mut i64,
    out: &mut Vec<(String, TextRange, i64)>,
) -> bool {
    let (name, value) = match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Block, values) => {
            return values.iter().all(|v| members_of(cx, v, next, out));
        }
        (true, Kind::Identifier, _) => (node, *next),
        (false, Kind::Assign, [name, value]) if name.leaf && name.kind == Kind::Identifier => {
            match integer(&expr(cx, value)) {
                Some(v) => (name, v),
                None => {
                    cx.unsupported(value, "`@enum` value that is not an integer literal");
                    return false;
                }
            }
        }
        _ => {
            cx.unsupported(node, "`@enum` member");
            return false;
        }
    };
    if out.iter().any(|(_, _, v)| *v == value) {
        let what = format!(
            "`@enum` member `{}` repeating the value {value}",
            cx.text(name)
        );
        cx.unsupported(node, &what);
        return false;
    }
    out.push((cx.text(name).to_string(), name.range, value));
    *next = value.wrapping_add(1);
    true
}

/// The value of an integer literal, negated or not.
fn integer(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Unary { op: UnOp::Neg, arg } => integer(arg).map(i64::wrapping_neg),
        _ => None,
    }
}

/// One `@enum` definition.
struct Enum {
    name: String,
    name_range: TextRange,
    /// Each member's name, where it is written, and its value.
    members: Vec<(String, TextRange, i64)>,
    range: TextRange,
}

impl Enum {
    fn items(&self) -> Vec<Item> {
        let r = self.range;
        let mut items = vec![
            Item::Struct(self.definition()),
            Item::Function(self.constructor()),
        ];
        items.extend(self.members.iter().map(|(name, name_range, value)| {
            Item::Global(GlobalDef {
                name: name.clone(),
                name_range: *name_range,
                value: Expr::call(&self.name, vec![Expr::new(ExprKind::Int(*value), r)], r),
                is_const: true,
                range: r,
            })
        }));
        let names = self.members.iter();
        let instances = names.clone().map(|(n, ..)| ExprKind::Ident(n.clone()));
        let strings = names.map(|(n, ..)| ExprKind::Str(n.clone()));
        items.push(Item::Function(self.table("Base.instances", instances)));
        items.push(Item::Function(self.table("Base._enum_names", strings)));
        items.push(Item::Function(self.show()));
        items
    }

    /// `Base.show(io::IO, x::T) = print(io, Base._enum_name(x))` as the syntax keeps a `show`
    /// method (`output.rs`): `io` the text so far, the method returning it extended.
    fn show(&self) -> FunctionDef {
        let r = self.range;
        let ident = |n: &str| Expr::new(ExprKind::Ident(n.into()), r);
        let name = Expr::call("Base._enum_name", vec![ident("x")], r);
        let mut def = self.method(
            FunctionName::Named("Base.show".into()),
            Param {
                name: Some("io".into()),
                ty: Some(self.ty("String", Vec::new())),
                default: None,
                varargs: false,
                range: r,
            },
            Expr::call("string", vec![ident("io"), name], r),
        );
        def.params.push(Param {
            name: Some("x".into()),
            ty: Some(self.ty(&self.name, Vec::new())),
            default: None,
            varargs: false,
            range: r,
        });
        def
    }

    /// `struct T <: Base.Enum value::Int end`, built only by its inner constructor.
    fn definition(&self) -> StructDef {
        StructDef {
            name: self.name.clone(),
            name_range: self.name_range,
            params: Vec::new(),
            param_bounds: Vec::new(),
            supertype: Some(self.ty("Base.Enum", Vec::new())),
            fields: vec![FieldDef {
                name: "value".into(),
                ty: Some(self.ty("Int", Vec::new())),
                range: self.range,
            }],
            const_fields: Vec::new(),
            mutable: false,
            is_abstract: false,
            inner_constructors: true,
            alias: None,
            range: self.range,
        }
    }

    /// `T(x::Integer) = new(Base._enum_value(x, (values...), "T"))`.
    fn constructor(&self) -> FunctionDef {
        let r = self.range;
        let values = self.members.iter();
        let values = values
            .map(|(_, _, v)| Expr::new(ExprKind::Int(*v), r))
            .collect();
        let checked = Expr::call(
            "Base._enum_value",
            vec![
                Expr::new(ExprKind::Ident("x".into()), r),
                Expr::new(ExprKind::Tuple(values), r),
                Expr::new(ExprKind::Str(self.name.clone()), r),
            ],
            r,
        );
        let new = Expr::call(
            NEW,
            vec![Expr::new(ExprKind::Ident(self.name.clone()), r), checked],
            r,
        );
        self.method(
            FunctionName::Named(self.name.clone()),
            Param {
                name: Some("x".into()),
                ty: Some(self.ty("Integer", Vec::new())),
                default: None,
                varargs: false,
                range: r,
            },
            new,
        )
    }

    /// `f(::Type{T}) = (elements...)`.
    fn table(&self, f: &str, elements: impl Iterator<Item = ExprKind>) -> FunctionDef {
        let r = self.range;
        let tuple = ExprKind::Tuple(elements.map(|e| Expr::new(e, r)).collect());
        let param = Param {
            name: None,
            ty: Some(self.ty("Type", vec![self.ty(&self.name, Vec::new())])),
            default: None,
            varargs: false,
            range: r,
        };
        self.method(FunctionName::Named(f.into()), param, Expr::new(tuple, r))
    }

    /// A method of one parameter whose body is `body`.
    fn method(&self, name: FunctionName, param: Param, body: Expr) -> FunctionDef {
        FunctionDef {
            name,
            name_range: self.name_range,
            params: vec![param],
            keywords: Vec::new(),
            keyword_rest: None,
            where_params: Vec::new(),
            return_type: None,
            body: vec![body],
            range: self.range,
            annotations: Vec::new(),
        }
    }

    fn ty(&self, name: &str, params: Vec<TypeExpr>) -> TypeExpr {
        TypeExpr::Named {
            name: name.into(),
            params,
            range: self.range,
        }
    }
}
