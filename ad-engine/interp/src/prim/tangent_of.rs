//! `tangent_of(x, s, r)`: the gradient of a value whose shape depends on the data, read out of
//! its shadow (fdata) and its returned part (rdata) node by node, as deep as the data. A mutable
//! struct's shadow is a box of its fields' slots; its gradient is the named tuple of theirs,
//! each box a slot holds (a node's next node) read the same way, so a list's gradient is
//! Zygote's nested named tuple. A node reached twice (a graph whose nodes have two parents) is
//! read once and its gradient shared; a node reached again from itself (a cycle) has no such
//! gradient.

use std::rc::Rc;

use crate::value::{Array, ArrayData, Objects, Value};

/// `tangent_of(x, s, r)`.
pub fn tangent_of(args: &[Value]) -> Result<Value, String> {
    match args {
        [x, s, r] => Reader::default().read(x, s, r),
        _ => Err("internal error: `tangent_of` expects a value, its shadow and its rdata".into()),
    }
}

/// The state of one read: the nodes on the path from the root, and the nodes read.
#[derive(Default)]
struct Reader {
    /// The mutable nodes being read, outermost first: one met again among them is a cycle.
    path: Vec<*const ()>,
    /// The mutable nodes read, with their gradients.
    done: Vec<(*const (), Value)>,
}

impl Reader {
    /// The gradient of `x` from its shadow `s` and its rdata `r` (`nothing` for a part it
    /// has not).
    fn read(&mut self, x: &Value, s: &Value, r: &Value) -> Result<Value, String> {
        match x {
            Value::Mutable(st, fields) => {
                let Value::Ref(b) = s else {
                    return Ok(Value::Nothing);
                };
                let at = Rc::as_ptr(fields).cast::<()>();
                let contents = b.borrow().clone();
                let Value::NamedTuple(names, slots) = contents else {
                    return Err(format!(
                        "internal error: the shadow of a {} holds {contents}",
                        st.name
                    ));
                };
                let values = fields.borrow().clone();
                self.node(at, &st.name, |me| {
                    let parts = values
                        .iter()
                        .zip(slots.iter())
                        .map(|(v, slot)| me.slot(v, slot))
                        .collect::<Result<Vec<_>, String>>()?;
                    Ok(Value::NamedTuple(names.clone(), parts.into()))
                })
            }
            Value::Ref(cell) => {
                let Value::Ref(b) = s else {
                    return Ok(Value::Nothing);
                };
                let at = Rc::as_ptr(cell).cast::<()>();
                let (inner, slot) = (cell.borrow().clone(), b.borrow().clone());
                self.node(at, "Base.RefValue", |me| {
                    let g = me.slot(&inner, &slot)?;
                    Ok(Value::NamedTuple(
                        Rc::from(vec!["x".into()]),
                        Rc::from(vec![g]),
                    ))
                })
            }
            Value::Struct(_, vs) | Value::Tuple(vs) | Value::NamedTuple(_, vs) => {
                if matches!((s, r), (Value::Nothing, Value::Nothing)) {
                    return Ok(Value::Nothing);
                }
                let parts = vs
                    .iter()
                    .enumerate()
                    .map(|(i, v)| self.read(v, &part(s, i), &part(r, i)))
                    .collect::<Result<Vec<_>, String>>()?;
                Ok(match x {
                    Value::Struct(st, _) => Value::NamedTuple(
                        st.fields.iter().map(|(n, _)| n.clone()).collect(),
                        parts.into(),
                    ),
                    Value::NamedTuple(names, _) => Value::NamedTuple(names.clone(), parts.into()),
                    _ => Value::Tuple(parts.into()),
                })
            }
            Value::Array(a) => self.elements(a, s),
            Value::Adjoint(_) => Ok(s.clone()),
            _ if x.is_number() => Ok(r.clone()),
            _ => Ok(Value::Nothing),
        }
    }

    /// The gradient of the object at `at` (a mutable struct or `Ref` of type `name`), read by
    /// `read` unless it was read before; an object being read is a cycle.
    fn node(
        &mut self,
        at: *const (),
        name: &str,
        read: impl FnOnce(&mut Self) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if let Some((_, g)) = self.done.iter().find(|(p, _)| *p == at) {
            return Ok(g.clone());
        }
        if self.path.contains(&at) {
            return Err(format!(
                "unsupported: the gradient with respect to a {name} that reaches itself \
                 through its fields (a cycle, as a doubly-linked list's nodes make) is not \
                 defined: its nested named tuple would have no end; take the gradient with \
                 respect to the numbers it is built from"
            ));
        }
        self.path.push(at);
        let g = read(self)?;
        self.path.pop();
        self.done.push((at, g.clone()));
        Ok(g)
    }

    /// The gradient of the field value `v` from what its box holds for it: the box of an
    /// object with one (a mutable struct, a `Ref`), the shadow of an array, otherwise its
    /// gradient.
    fn slot(&mut self, v: &Value, slot: &Value) -> Result<Value, String> {
        match v {
            Value::Mutable(..) | Value::Ref(_) | Value::Array(_) | Value::Adjoint(_) => {
                self.read(v, slot, &Value::Nothing)
            }
            _ => Ok(slot.clone()),
        }
    }

    /// The gradient of the array `a` from its shadow `s`: the shadow itself, but for a vector
    /// of mutable structs, whose shadow holds their boxes, the vector of what they hold.
    fn elements(&mut self, a: &crate::value::ArrayRef, s: &Value) -> Result<Value, String> {
        let Value::Array(sa) = s else {
            return Ok(s.clone());
        };
        let (primal, shadow) = (a.borrow(), sa.borrow());
        let (ArrayData::Obj(xs), ArrayData::Obj(shadows)) = (&primal.data, &shadow.data) else {
            return Ok(s.clone());
        };
        if !xs.items.iter().any(|x| matches!(x, Value::Mutable(..))) {
            return Ok(s.clone());
        }
        let items = xs
            .items
            .iter()
            .zip(shadows.items.iter())
            .map(|(x, b)| self.read(x, b, &Value::Nothing))
            .collect::<Result<Vec<_>, String>>()?;
        let elem = zy_ir::tangent_type(&xs.elem);
        let shape = shadow.shape;
        Ok(Value::Array(Rc::new(std::cell::RefCell::new(Array::new(
            shape,
            ArrayData::Obj(Objects { elem, items }),
        )))))
    }
}

/// Field `i` of the shadow or rdata `v` (a tuple or named tuple of its fields' parts), or
/// `nothing` where it has none.
fn part(v: &Value, i: usize) -> Value {
    match v {
        Value::Tuple(vs) | Value::NamedTuple(_, vs) => vs.get(i).cloned().unwrap_or(Value::Nothing),
        _ => Value::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use zy_ir::{Name, StructKind, StructType, Type};

    use super::*;
    use crate::show::show;

    /// A node type `name` with a `Float64` field `val` and the links `links`, each
    /// `Union{Nothing, name}`.
    fn node_type(name: &str, links: &[&str], mutable: bool) -> Arc<StructType> {
        let link = Type::union(
            format!("Union{{Nothing, {name}}}").as_str().into(),
            vec![
                Type::Nothing,
                Type::Recur(name.into(), Arc::from(Vec::new())),
            ],
        );
        let mut fields = vec![(Name::from("val"), Type::Float64)];
        fields.extend(links.iter().map(|l| (Name::from(*l), link.clone())));
        Arc::new(StructType {
            name: name.into(),
            params: vec![],
            fields,
            mutable,
            kind: StructKind::User,
        })
    }

    /// A shadow box holding the named tuple of `names` and `slots`.
    fn shadow(names: &[&str], slots: Vec<Value>) -> Value {
        let names: Vec<Name> = names.iter().map(|n| Name::from(*n)).collect();
        Value::new_ref(Value::NamedTuple(names.into(), slots.into()))
    }

    fn read(x: &Value, s: &Value) -> Result<String, String> {
        tangent_of(&[x.clone(), s.clone(), Value::Nothing]).map(|g| show(&g))
    }

    #[test]
    fn a_list_reads_as_nested_named_tuples() {
        let t = node_type("N", &["next"], true);
        let b = Value::new_struct(t.clone(), vec![Value::F64(2.0), Value::Nothing]);
        let a = Value::new_struct(t, vec![Value::F64(1.0), b]);
        let sb = shadow(&["val", "next"], vec![Value::F64(4.0), Value::Nothing]);
        let sa = shadow(&["val", "next"], vec![Value::F64(3.0), sb]);
        assert_eq!(
            read(&a, &sa),
            Ok("(val = 3.0, next = (val = 4.0, next = nothing))".into())
        );
    }

    #[test]
    fn a_node_reached_twice_is_read_once_and_a_cycle_is_refused() {
        let t = node_type("G", &["a", "b"], true);
        let d = Value::new_struct(
            t.clone(),
            vec![Value::F64(1.0), Value::Nothing, Value::Nothing],
        );
        let c = Value::new_struct(t.clone(), vec![Value::F64(2.0), d.clone(), d]);
        let names = ["val", "a", "b"];
        let sd = shadow(
            &names,
            vec![Value::F64(5.0), Value::Nothing, Value::Nothing],
        );
        let sc = shadow(&names, vec![Value::F64(6.0), sd.clone(), sd]);
        let leaf = "(val = 5.0, a = nothing, b = nothing)";
        assert_eq!(
            read(&c, &sc),
            Ok(format!("(val = 6.0, a = {leaf}, b = {leaf})"))
        );
        // The same two nodes linked each to the other.
        let p = Value::new_struct(
            t.clone(),
            vec![Value::F64(1.0), Value::Nothing, Value::Nothing],
        );
        let q = Value::new_struct(t, vec![Value::F64(2.0), p.clone(), Value::Nothing]);
        if let Value::Mutable(_, fs) = &p {
            fs.borrow_mut()[1] = q.clone();
        }
        let sp = shadow(
            &names,
            vec![Value::F64(1.0), Value::Nothing, Value::Nothing],
        );
        let sq = shadow(&names, vec![Value::F64(1.0), sp.clone(), Value::Nothing]);
        if let Value::Ref(b) = &sp {
            let contents = b.borrow().clone();
            if let Value::NamedTuple(n, vs) = contents {
                let mut vs = vs.to_vec();
                vs[1] = sq.clone();
                *b.borrow_mut() = Value::NamedTuple(n, vs.into());
            }
        }
        let refused = read(&q, &sq).unwrap_err();
        assert!(refused.contains("a G that reaches itself"), "{refused}");
    }

    #[test]
    fn an_immutable_node_joins_its_shadow_and_returned_parts() {
        let t = node_type("B", &["next"], false);
        let mut fields = t.fields.clone();
        fields.insert(1, ("w".into(), Type::vector_f64()));
        let t = Arc::new(StructType {
            fields,
            ..(*t).clone()
        });
        let x = Value::new_struct(
            t,
            vec![
                Value::F64(1.0),
                Value::vector_f64(vec![1.0]),
                Value::Nothing,
            ],
        );
        let names: Rc<[Name]> = vec!["val".into(), "w".into(), "next".into()].into();
        let s = Value::NamedTuple(
            names.clone(),
            vec![Value::Nothing, Value::vector_f64(vec![7.0]), Value::Nothing].into(),
        );
        let r = Value::NamedTuple(
            names,
            vec![Value::F64(8.0), Value::Nothing, Value::Nothing].into(),
        );
        let g = tangent_of(&[x, s, r]).map(|g| show(&g));
        assert_eq!(g, Ok("(val = 8.0, w = [7.0], next = nothing)".into()));
    }
}
