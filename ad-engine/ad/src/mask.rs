//! Field-level activity: which parts of a value depend on a differentiated input ([`Vary`]), and
//! the key of an adjoint built for the parts of its arguments that vary at a call
//! ([`ArgMask`]).
//!
//! The parts are the fields of tuples, named tuples and structs (mutable ones too), nested: a
//! Bessel order held in a field (`besselj(p.ν, p.x)` of `p = (ν = 2.0, x = x)`) is a constant of
//! the callee though `p` varies. Any other value (a number, an array, a `Ref`) is one leaf.

use std::sync::Arc;

use zy_ir::{Name, Type};

/// How much of a value depends differentiably on a differentiated input: none of it, all of it,
/// or, for a value with parts (see [`parts`]), each field as said. Kept normal: `Fields` holds
/// at least one field that varies and one that does not.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Vary {
    /// Nothing in it varies.
    #[default]
    No,
    /// All of it may vary.
    Yes,
    /// Field `i` varies as `fields[i]` says.
    Fields(Arc<[Vary]>),
}

impl Vary {
    /// [`Vary::Yes`] if `b`, else [`Vary::No`].
    pub fn of(b: bool) -> Vary {
        if b {
            Vary::Yes
        } else {
            Vary::No
        }
    }

    /// A value whose fields vary as `fields` say, in normal form.
    pub fn fields(fields: Vec<Vary>) -> Vary {
        if fields.iter().all(|f| *f == Vary::No) {
            Vary::No
        } else if fields.iter().all(|f| *f == Vary::Yes) {
            Vary::Yes
        } else {
            Vary::Fields(fields.into())
        }
    }

    /// Does any part of the value vary?
    pub fn any(&self) -> bool {
        !matches!(self, Vary::No)
    }

    /// How field `i` (from 0) varies; a field the tree does not hold may vary.
    pub fn field(&self, i: usize) -> Vary {
        match self {
            Vary::Fields(fs) => fs.get(i).cloned().unwrap_or(Vary::Yes),
            v => v.clone(),
        }
    }

    /// What varies in either.
    pub fn join(&self, other: &Vary) -> Vary {
        match (self, other) {
            (Vary::No, v) | (v, Vary::No) => v.clone(),
            (Vary::Fields(a), Vary::Fields(b)) if a.len() == b.len() => {
                Vary::fields(a.iter().zip(b.iter()).map(|(x, y)| x.join(y)).collect())
            }
            _ => Vary::Yes,
        }
    }
}

/// The parts of a value of type `t` that activity tells apart: the field types of a tuple, named
/// tuple or struct that is not recursive; `None` for a leaf.
pub fn parts(t: &Type) -> Option<Vec<Type>> {
    (0..part_count(t)?).map(|i| t.field(i)).collect()
}

/// How many [`parts`] a value of type `t` has; `None` for a leaf.
pub fn part_count(t: &Type) -> Option<usize> {
    match t {
        Type::Struct(s) if s.is_recursive() => None,
        Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_) => t.field_count(),
        _ => None,
    }
}

/// The name of field `i` of a value of type `t` in an adjoint's name: a named tuple's or
/// struct's field name, a tuple's 1-based position.
fn part_name(t: &Type, i: usize) -> Name {
    match t {
        Type::NamedTuple(fs) => fs[i].0.clone(),
        Type::Struct(s) => s.fields[i].0.clone(),
        _ => (i + 1).to_string().into(),
    }
}

/// The leaves a mask has a bit for; past them, everything is active.
const BITS: usize = 64;

/// Which differentiable parts of a call's arguments are active there (depend on a
/// differentiated input): an adjoint is built per instance and mask, and an inactive part is no
/// seed of the callee's activity (its refusals do not fire) and gets no gradient from its
/// pullback (`nothing` for a whole argument). Two bit sets: bit `i` of `args` marks argument `i`
/// wholly inactive; bit `k` of `leaves` marks inactive the `k`th leaf of the arguments taken in
/// order, each flattened depth first over its [`parts`]. Arguments past the 64th, and leaves
/// past the 64th, are always active.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct ArgMask {
    args: u64,
    leaves: u64,
}

impl ArgMask {
    /// Every argument active: the adjoint a gradient's root and a rule-given adjoint use.
    pub const ALL: ArgMask = ArgMask { args: 0, leaves: 0 };

    /// The mask of arguments of types `tys` where argument `i` varies as `vary(i)` says; a part
    /// that is not differentiable counts as active (no gradient reaches it anyway), so that a
    /// call whose differentiable parts all vary has [`ArgMask::ALL`].
    pub fn of(tys: &[Type], vary: impl Fn(usize) -> Vary) -> ArgMask {
        let mut mask = ArgMask::ALL;
        let mut leaf = 0;
        for (i, t) in tys.iter().enumerate() {
            let active = mask.mark(t, &vary(i), &mut leaf);
            if i < BITS && t.is_differentiable() && !active {
                mask.args |= 1 << i;
            }
        }
        mask
    }

    /// Mark the inactive leaves of a value of type `t` varying as `v`, from leaf `*leaf` on;
    /// whether a differentiable leaf of it is active.
    fn mark(&mut self, t: &Type, v: &Vary, leaf: &mut usize) -> bool {
        if *leaf >= BITS {
            return v.any() && t.is_differentiable();
        }
        match parts(t) {
            Some(ps) => {
                let mut active = false;
                for (i, p) in ps.iter().enumerate() {
                    active |= self.mark(p, &v.field(i), leaf);
                }
                active
            }
            None => {
                let differentiable = t.is_differentiable();
                if differentiable && !v.any() {
                    self.leaves |= 1 << *leaf;
                }
                *leaf += 1;
                differentiable && v.any()
            }
        }
    }

    /// Is every argument active?
    pub fn is_all(self) -> bool {
        self == ArgMask::ALL
    }

    /// Is some part of argument `i` active?
    pub fn is_active(self, i: usize) -> bool {
        i >= BITS || self.args & (1 << i) == 0
    }

    /// How each of the arguments of types `tys` varies under this mask: what seeds the
    /// callee's activity.
    pub fn varies(self, tys: &[Type]) -> Vec<Vary> {
        let mut leaf = 0;
        tys.iter()
            .enumerate()
            .map(|(i, t)| {
                let v = self.vary(t, &mut leaf);
                if self.is_active(i) {
                    v
                } else {
                    Vary::No
                }
            })
            .collect()
    }

    /// How a value of type `t` whose first leaf is `*leaf` varies under this mask.
    fn vary(self, t: &Type, leaf: &mut usize) -> Vary {
        if *leaf >= BITS {
            return Vary::Yes;
        }
        match parts(t) {
            Some(ps) => Vary::fields(ps.iter().map(|p| self.vary(p, leaf)).collect()),
            None => {
                let inactive = self.leaves & (1 << *leaf) != 0;
                *leaf += 1;
                Vary::of(!inactive)
            }
        }
    }

    /// The active parts of the arguments of types `tys`, each wholly active part as its path:
    /// the 1-based argument position, then field names (a tuple's 1-based positions), joined
    /// by dots (`2`, `1.x`, `1.3.ν`).
    pub fn paths(self, tys: &[Type]) -> Vec<String> {
        let mut out = Vec::new();
        for ((i, t), v) in tys.iter().enumerate().zip(self.varies(tys)) {
            if t.is_differentiable() {
                active_paths(t, &v, (i + 1).to_string(), &mut out);
            }
        }
        out
    }

    /// The mask whose [`ArgMask::paths`] of arguments of types `tys` are `paths`, if they are
    /// such paths.
    pub fn from_paths(tys: &[Type], paths: &[&str]) -> Option<ArgMask> {
        let split: Vec<Vec<&str>> = paths.iter().map(|p| p.split('.').collect()).collect();
        let vary = |i: usize| {
            let position = (i + 1).to_string();
            let under: Vec<&[&str]> = split
                .iter()
                .filter(|p| p[0] == position)
                .map(|p| &p[1..])
                .collect();
            vary_of_paths(&tys[i], &under)
        };
        let mask = ArgMask::of(tys, vary);
        (mask.paths(tys) == paths).then_some(mask)
    }
}

/// Push the paths of the wholly active differentiable parts of a value of type `t` varying as
/// `v`, found at `path`.
fn active_paths(t: &Type, v: &Vary, path: String, out: &mut Vec<String>) {
    match v {
        Vary::No => {}
        Vary::Yes => out.push(path),
        Vary::Fields(fs) => {
            let ps = parts(t).unwrap_or_default();
            for (i, (p, f)) in ps.iter().zip(fs.iter()).enumerate() {
                if p.is_differentiable() {
                    active_paths(p, f, format!("{path}.{}", part_name(t, i)), out);
                }
            }
        }
    }
}

/// How a value of type `t` varies when the parts at `paths` (relative to it) are active.
fn vary_of_paths(t: &Type, paths: &[&[&str]]) -> Vary {
    if paths.is_empty() {
        return Vary::No;
    }
    if paths.iter().any(|p| p.is_empty()) {
        return Vary::Yes;
    }
    let Some(ps) = parts(t) else {
        return Vary::No;
    };
    let fields = ps.iter().enumerate().map(|(i, p)| {
        let name = part_name(t, i);
        let under: Vec<&[&str]> = paths
            .iter()
            .filter(|q| q[0] == &*name)
            .map(|q| &q[1..])
            .collect();
        vary_of_paths(p, &under)
    });
    Vary::fields(fields.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zy_ir::{StructKind, StructType};

    fn cfg() -> Type {
        Type::Struct(Arc::new(StructType {
            name: "Cfg".into(),
            params: vec![],
            fields: vec![
                ("scale".into(), Type::Float64),
                ("n".into(), Type::Int64),
                ("nu".into(), Type::Float64),
            ],
            mutable: false,
            kind: StructKind::User,
        }))
    }

    #[test]
    fn a_constant_field_is_one_leaf_bit() {
        let tys = [cfg(), Type::Float64];
        let p = Vary::fields(vec![Vary::Yes, Vary::No, Vary::No]);
        let mask = ArgMask::of(&tys, |i| if i == 0 { p.clone() } else { Vary::Yes });
        assert!(!mask.is_all() && mask.is_active(0) && mask.is_active(1));
        assert_eq!(mask.paths(&tys), ["1.scale", "2"]);
        // The Int field is not differentiable: it counts as varying in the callee.
        let seeded = mask.varies(&tys);
        assert_eq!(
            seeded[0],
            Vary::fields(vec![Vary::Yes, Vary::Yes, Vary::No])
        );
        assert_eq!(seeded[1], Vary::Yes);
        assert_eq!(ArgMask::from_paths(&tys, &["1.scale", "2"]), Some(mask));
        assert_eq!(ArgMask::from_paths(&tys, &["1.n"]), None);
    }

    #[test]
    fn a_wholly_constant_argument_is_inactive() {
        let nt = Type::NamedTuple(vec![("a".into(), Type::Float64)].into());
        let tys = [Type::tuple([nt.clone(), Type::Float64]), Type::Float64];
        let mask = ArgMask::of(&tys, |i| Vary::of(i == 1));
        assert!(!mask.is_active(0) && mask.is_active(1));
        assert_eq!(mask.paths(&tys), ["2"]);
        let inner = ArgMask::of(&tys, |i| match i {
            0 => Vary::fields(vec![Vary::No, Vary::Yes]),
            _ => Vary::Yes,
        });
        assert_eq!(inner.paths(&tys), ["1.2", "2"]);
        let all = ArgMask::of(&tys, |_| Vary::Yes);
        assert!(all.is_all());
        assert_eq!(all.paths(&tys), ["1", "2"]);
    }

    #[test]
    fn leaves_past_the_bits_stay_active() {
        let wide = Type::tuple(vec![Type::Float64; 70]);
        let tys = [wide, Type::Float64];
        let mask = ArgMask::of(&tys, |i| Vary::of(i == 0));
        // Argument 2's leaf is the 71st: only its argument bit says it is constant.
        assert!(mask.is_active(0) && !mask.is_active(1));
        assert_eq!(mask.varies(&tys)[1], Vary::No);
    }
}
