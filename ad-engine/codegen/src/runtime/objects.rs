//! Runtime support for vectors whose elements are tuples or structs (`layout::Elem`).

use super::ArrayObj;

/// `accum!(dst, src)` of two vectors of one length whose elements are `words` Float64 slots
/// each (the shadow of a `Vector{Tuple{Float64, Float64}}`, of a vector of structs of numbers):
/// every slot of `src` added into the same slot of `dst` (`0.0 + s` when `fresh`, as the
/// interpreter adds into a zero). Returns 1 (and does nothing) when the lengths differ.
///
/// # Safety
/// Both must be live arrays of the call holding `words` Float64 words per element.
pub unsafe extern "C" fn zy_rt_accum_words(
    dst: *mut ArrayObj,
    src: *const ArrayObj,
    words: i64,
    fresh: i8,
) -> i8 {
    let (d, s) = unsafe { (&*dst, &*src) };
    if d.len != s.len {
        return 1;
    }
    let n = (d.len.max(0) as usize).saturating_mul(words.max(0) as usize);
    // SAFETY: both hold `n` Float64 words; they may be the same array (then not fresh).
    unsafe {
        let (dp, sp) = (d.data.cast::<f64>(), s.data.cast::<f64>());
        for k in 0..n {
            let base = if fresh != 0 { 0.0 } else { *dp.add(k) };
            *dp.add(k) = base + *sp.add(k);
        }
    }
    0
}

/// The symbols of this module.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![("zy_rt_accum_words", zy_rt_accum_words as *const u8)]
}
