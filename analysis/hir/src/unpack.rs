//! Reads back the untyped SSA of a prelude item that the build script lowered and packed
//! (`build.rs`: postcard's encoding of the IR's serde derives, in which typed IR does not
//! serialize), so that a process neither parses nor lowers the library items it reaches:
//! [`crate::ssa`] of a bundled item is this, spans set to the item's number. The bytes are the
//! build's own (`bundled_items_parse_alone` checks every item against its lowering); bytes
//! that do not read read as `None`, and the item is then lowered from its text.

use std::sync::Arc;

use zy_ir::{Function, Global, Method, Name, Span, StructDef};
use zy_lower::LoweredItem;

/// The `Span::file` the build script lowers an item with, set to the item's own number when
/// read (one byte in the packing; file 0 is lowering's default span).
pub(crate) const ITEM_FILE: u32 = 1;

/// The lowered item packed in `bytes`, its spans in file `span_file`.
pub(crate) fn unpack(bytes: &[u8], span_file: u32) -> Option<LoweredItem> {
    type Packed = (Vec<(Name, Method)>, Vec<StructDef>, Vec<Global>);
    let ((mut methods, mut structs, mut globals), rest) =
        postcard::take_from_bytes::<Packed>(bytes).ok()?;
    if !rest.is_empty() {
        return None;
    }
    let file = |s: &mut Span| {
        if s.file == ITEM_FILE {
            s.file = span_file;
        }
    };
    for (_, m) in &mut methods {
        file(&mut m.span);
        set_file(&mut m.body, &file);
    }
    for s in &mut structs {
        file(&mut s.span);
    }
    for g in &mut globals {
        file(&mut g.span);
        set_file(&mut g.body, &file);
    }
    Some(LoweredItem {
        methods,
        structs,
        globals,
        errors: Vec::new(),
    })
}

/// `file` applied to every span of `f` (just read, so not shared).
fn set_file(f: &mut Arc<Function>, file: &impl Fn(&mut Span)) {
    let f = Arc::make_mut(f);
    file(&mut f.span);
    f.blocks.iter_mut().for_each(|b| file(&mut b.term_span));
    f.values.iter_mut().for_each(|v| file(&mut v.span));
}

#[cfg(test)]
mod tests {
    use zy_ir::{Span, Type};

    use super::*;

    /// Typed IR does not pack, and bytes cut short or with more after them do not read.
    #[test]
    fn only_whole_untyped_items_read() {
        let mut f = Function::new("f", Span::new(ITEM_FILE, 3, 9));
        let untyped = (
            Vec::<(Name, Method)>::new(),
            Vec::<StructDef>::new(),
            vec![Global {
                name: "g".into(),
                body: Arc::new(f.clone()),
                span: Span::new(ITEM_FILE, 0, 9),
            }],
        );
        let bytes = postcard::to_allocvec(&untyped).expect("untyped IR packs");
        let item = unpack(&bytes, 7).expect("reads");
        assert_eq!(item.globals[0].span, Span::new(7, 0, 9));
        assert_eq!(item.globals[0].body.span, Span::new(7, 3, 9));
        assert_eq!(unpack(&bytes[..bytes.len() - 1], 7), None);
        assert_eq!(unpack(&[&bytes[..], &[0]].concat(), 7), None);
        f.ret = Type::Float64;
        assert!(postcard::to_allocvec(&f).is_err(), "typed IR packed");
    }
}
