//! The slow path: a primitive evaluated on interpreter values by [`zy_interp::eval_prim`], so
//! results and error messages are the interpreter's own.

use zy_interp::Value;
use zy_ir::{Prim, Type};

use std::sync::Arc;

use crate::convert::{FromNative, Tables, ToNative};
use crate::runtime::objects;
use crate::runtime::site::{FallbackArg, SiteKind};
use crate::runtime::{Ctx, Site};

/// Evaluate the fallback `site` on the operand slots in `buf`, writing the result's slots back
/// to `buf`.
///
/// # Safety
/// `buf` must hold the operand slots `site` describes and have room for the result's slots.
pub unsafe fn run(ctx: &mut Ctx, site: &Site, buf: *mut u64) -> Result<(), String> {
    let SiteKind::Fallback(fb) = &site.kind else {
        return Err("internal error: JIT fallback at a site without a primitive".into());
    };
    if let (Prim::ZeroTangent, [FallbackArg::Slots { ty, offset }]) = (fb.prim, fb.args.as_slice())
    {
        let n = fb.layout.slot_count(ty).map_err(|e| e.to_string())?;
        // SAFETY: the caller stored `n` words at `offset`.
        let words = unsafe { std::slice::from_raw_parts(buf.add(*offset), n) };
        let arena = &mut ctx.state.arena;
        if let Some(out) = objects::zero_tangent(arena, &fb.layout, &fb.ret, words, ty) {
            // SAFETY: the buffer has room for the result's slots.
            unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), buf, out.len()) };
            return Ok(());
        }
    }
    let tables = Arc::new(Tables {
        layout: fb.layout.clone(),
        ..Tables::default()
    });
    let mut from = FromNative::fresh(tables.clone());
    let mut args = Vec::with_capacity(fb.args.len());
    for a in &fb.args {
        args.push(match a {
            FallbackArg::Const(c) => Value::from_const(c),
            FallbackArg::Slots { ty, offset } => {
                let n = fb.layout.slot_count(ty).map_err(|e| e.to_string())?;
                // SAFETY: the caller stored `n` words at `offset`.
                let words = unsafe { std::slice::from_raw_parts(buf.add(*offset), n) };
                from.value(words, &mut 0, ty)?
            }
        });
    }
    stash_thrown(ctx, site, fb.prim, &args);
    let result = zy_interp::eval_prim(fb.prim, &args, &fb.ret)?;
    if fb.ret == Type::Bottom {
        return Ok(());
    }
    let mut out = Vec::new();
    // A result holding an operand's objects holds those same objects (a shallow copy of a
    // vector of arrays shares its elements); a primitive that mutates an operand never gets
    // here for a vector of objects (`Translator::fallback` refuses it).
    let mut to = if fb.prim.info().effects.mutates.is_none() {
        ToNative::knowing(tables, from.objects_made())
    } else {
        ToNative::new(tables)
    };
    to.value(&mut ctx.state.arena, &result, &fb.ret, &mut out)?;
    // SAFETY: the buffer has room for the result's slots.
    unsafe { std::ptr::copy_nonoverlapping(out.as_ptr(), buf, out.len()) };
    Ok(())
}

/// Before `throw(x)` or `rethrow(e)` fails: the exception it raises (the thrown value, or the
/// caught exception with its first span), for the `catch` that takes it or the report.
fn stash_thrown(ctx: &mut Ctx, site: &Site, prim: Prim, args: &[Value]) {
    let caught = match (prim, args) {
        (Prim::ThrowValue, [x, Value::Str(text)]) => {
            zy_interp::Caught::thrown(x.clone(), text, site.span, Vec::new())
        }
        // An exception made as a value (`throw(ArgumentError(msg))`) is raised here.
        (Prim::Rethrow, [Value::Exception(c)]) if c.span == Default::default() => {
            let mut raised = (**c).clone();
            raised.span = site.span;
            raised
        }
        (Prim::Rethrow, [Value::Exception(c)]) => {
            ctx.state.thrown = Some(c.clone());
            return;
        }
        _ => return,
    };
    ctx.state.thrown = Some(std::rc::Rc::new(caught));
}
