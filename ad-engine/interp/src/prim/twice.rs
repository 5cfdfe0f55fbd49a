//! Julia's floating-point ranges: `a:s:b`, `range(a; step, length)` and `range(a, b; length)`
//! of Float64s build a `StepRangeLen` whose reference element and step are kept to twice
//! the precision of a Float64 (Julia's `base/twiceprecision.jl`), found through exact
//! rational approximations of the endpoints where they exist. That is why `0.1:0.1:0.3`
//! has three elements and ends at `0.3`. [`FloatRange`] is that representation, computed
//! here step by step as Julia computes it (Int arithmetic wraps as Julia's does), so that
//! the elements the prelude computes from it are Julia's to the bit.

use crate::show::show;
use crate::value::Value;

/// `StepRangeLen{Float64, TwicePrecision{Float64}, TwicePrecision{Float64}}`: element `i`
/// is `ref + (i - offset) * step`, evaluated as Julia's `unsafe_getindex` does.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct FloatRange {
    /// The element at `offset` (the one of smallest magnitude, for a rational range).
    pub reference: Twice,
    /// The step; its `hi` part has trailing zeros enough that `k * hi` is exact.
    pub step: Twice,
    /// The number of elements.
    pub len: i64,
    /// The index of `reference`.
    pub offset: i64,
}

/// Julia's `TwicePrecision{Float64}`: the number `hi + lo`, `lo` below `hi`'s last bit.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Twice {
    /// The most significant part.
    pub hi: f64,
    /// The rest.
    pub lo: f64,
}

/// `maxintfloat(Float64, Int)`: 2^53.
const MAXINT: i64 = 1 << 53;

/// Which constructor: `a:s:b`, `range(a; step = s, length = n)`, `range(a, b; length = n)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Form {
    /// `start:step:stop`.
    Colon,
    /// `range(start; step, length)`.
    StepLength,
    /// `range(start, stop; length)`.
    StopLength,
    /// `StepRangeLen(start, step, length)` of plain Float64s (Julia's
    /// `StepRangeLen{Float64, Float64, Float64}`): its parts exactly `start` and `step`.
    Plain,
}

impl Form {
    /// The form a `float_range` operand names (1, 2, 3, 4).
    pub fn from_code(k: i64) -> Option<Form> {
        match k {
            1 => Some(Form::Colon),
            2 => Some(Form::StepLength),
            3 => Some(Form::StopLength),
            4 => Some(Form::Plain),
            _ => None,
        }
    }
}

impl FloatRange {
    /// Julia's range of `form` from `a`, `b` and `c` (`c` is the stop of `a:b:c` and the
    /// length otherwise); an error is Julia's message.
    pub fn new(form: Form, a: f64, b: f64, c: &Value) -> Result<FloatRange, String> {
        match (form, c) {
            (Form::Colon, Value::F64(stop)) => colon(a, b, *stop),
            (Form::StepLength, Value::Int(len)) => start_step_length(a, b, *len),
            (Form::StopLength, Value::Int(len)) => start_stop_length(a, b, *len),
            (Form::Plain, Value::Int(len)) => step_range_len(twice(a, 0.0), twice(b, 0.0), *len, 1),
            _ => Err(format!(
                "MethodError: no float range of {form:?} with {}",
                show(c)
            )),
        }
    }

    /// Julia's `sum(r)`, in closed form at twice precision.
    pub fn sum(&self) -> f64 {
        let l = self.len;
        let (np, nn) = (l.wrapping_sub(self.offset), self.offset - 1);
        let (p1, p2) = sumpair(np);
        let (n1, n2) = sumpair(nn);
        let tp = times_int(times_int(self.step, p1), p2);
        let tn = times_int(times_int(self.step, n1), n2);
        // Julia computes the low part of this difference too, and then leaves it out.
        let (s_hi, _) = add12(tp.hi, -tn.hi);
        let r = times_int(self.reference, l);
        let (sm_hi, sm_lo) = add12(s_hi, r.hi);
        add12(sm_hi, sm_lo + r.lo).0
    }
}

fn canonicalize2(big: f64, little: f64) -> (f64, f64) {
    let h = big + little;
    (h, (big - h) + little)
}

fn add12(x: f64, y: f64) -> (f64, f64) {
    if y.abs() > x.abs() {
        canonicalize2(y, x)
    } else {
        canonicalize2(x, y)
    }
}

fn mul12(x: f64, y: f64) -> (f64, f64) {
    let h = x * y;
    if h == 0.0 || !h.is_finite() {
        (h, h)
    } else {
        canonicalize2(h, x.mul_add(y, -h))
    }
}

/// `x` with its `nb` lowest significand bits cleared.
fn truncbits(x: f64, nb: u32) -> f64 {
    f64::from_bits(x.to_bits() & u64::MAX.checked_shl(nb).unwrap_or(0))
}

fn twice(hi: f64, lo: f64) -> Twice {
    Twice { hi, lo }
}

/// `TwicePrecision{Float64}(i)` of an integer: split so that `hi` multiplies exactly.
fn of_int(i: i128) -> Twice {
    let hi = truncbits(i as f64, 27);
    let lo = i.wrapping_sub(hi as i128) as f64;
    let (h, l) = canonicalize2(hi, lo);
    twice(h, l)
}

/// `x / y` at twice precision.
fn divide(x: Twice, y: Twice) -> Twice {
    let hi = x.hi / y.hi;
    let (uh, ul) = mul12(hi, y.hi);
    let lo = ((((x.hi - uh) - ul) + x.lo) - hi * y.lo) / y.hi;
    if hi == 0.0 || !hi.is_finite() {
        return twice(hi, hi);
    }
    let (h, l) = canonicalize2(hi, lo);
    twice(h, l)
}

/// `TwicePrecision{Float64}((n, d))`: the ratio `n / d`.
fn ratio(n: i128, d: i128) -> Twice {
    divide(of_int(n), twice(d as f64, 0.0))
}

/// `twiceprecision(x, nb)`: `hi` truncated to leave `nb` zero bits.
fn truncated(x: Twice, nb: u32) -> Twice {
    let hi = truncbits(x.hi, nb);
    twice(hi, (x.hi - hi) + x.lo)
}

/// `x * v` for an Int `v` (`hi` truncated so the product is exact).
fn times_int(x: Twice, v: i64) -> Twice {
    let vf = v as f64;
    if v == 0 {
        return twice(x.hi * vf, x.lo * vf);
    }
    let nb = (v.unsigned_abs() as f64).log2().ceil() as u32;
    let u = truncbits(x.hi, nb);
    let (h, l) = canonicalize2(u * vf, ((x.hi - u) + x.lo) * vf);
    twice(h, l)
}

/// `sum(1:n)` as a product of two integers.
fn sumpair(n: i64) -> (i64, i64) {
    if n % 2 == 0 {
        (n.wrapping_add(1), n >> 1)
    } else {
        (n, n.wrapping_add(1) >> 1)
    }
}

/// Julia's `nbitslen(Float64, len, offset)`.
fn nbitslen(len: i64, offset: i64) -> u32 {
    if len < 2 {
        return 0;
    }
    let span = (offset - 1).max(len - offset) as f64;
    ((span.log2().ceil() as i64 + 1).clamp(0, 27)) as u32
}

/// `StepRangeLen(reference, step, len, offset)`, with its argument checks.
fn step_range_len(
    reference: Twice,
    step: Twice,
    len: i64,
    offset: i64,
) -> Result<FloatRange, String> {
    if len < 0 {
        return Err(format!(
            "ArgumentError: length cannot be negative, got {len}"
        ));
    }
    if !(1 <= offset && offset <= len.max(1)) {
        return Err(format!(
            "ArgumentError: StepRangeLen: offset must be in [1,{len}], got {offset}"
        ));
    }
    Ok(FloatRange {
        reference,
        step,
        len,
        offset,
    })
}

/// `round(Int, x)`: ties to even, an InexactError outside Int64.
fn round_int(x: f64) -> Result<i64, String> {
    let r = x.round_ties_even();
    if r.is_finite() && r >= -(2f64.powi(63)) && r < 2f64.powi(63) {
        Ok(r as i64)
    } else {
        Err(format!(
            "InexactError: round(Int64, {})",
            show(&Value::F64(x))
        ))
    }
}

/// A best rational approximation `n / d` of `x` by continued fractions (Julia's `rat`):
/// `d` is zero when none with small enough terms was found.
fn rat(x: f64) -> (i64, i64) {
    let m = 16_777_216_i64; // maxintfloat(Float32, Int)
    let (mut y, mut a, mut b, mut c, mut d) = (x, 1_i64, 0_i64, 0_i64, 1_i64);
    while y.abs() <= m as f64 {
        let f = y.trunc() as i64;
        y -= f as f64;
        (a, c) = (f.wrapping_mul(a).wrapping_add(c), a);
        (b, d) = (f.wrapping_mul(b).wrapping_add(d), b);
        if a.wrapping_abs().max(b.wrapping_abs()) > m {
            return (c, d);
        }
        if a as f64 / b as f64 == x {
            break;
        }
        y = 1.0 / y;
    }
    (a, b)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// `lcm` without an overflow check (Julia's `lcm_unchecked`).
fn lcm_unchecked(a: i64, b: i64) -> i64 {
    match gcd(a, b) {
        0 => 0,
        g => a.wrapping_mul(b.wrapping_div(g)),
    }
}

fn isbetween(a: f64, x: f64, b: f64) -> bool {
    (a <= x && x <= b) || (b <= x && x <= a)
}

/// Does `n / d` (an Int ratio, divided as Float64s) equal `x`?
fn equals_ratio(n: i64, d: i64, x: f64) -> bool {
    n as f64 / d as f64 == x
}

/// The common denominator of two rational approximations, when both ends scaled by it
/// stay exact integers (Julia's checks before `floatrange`).
fn common_denominator(x: f64, xd: i64, y: f64, yd: i64) -> Option<i64> {
    let den = lcm_unchecked(xd, yd);
    let m = MAXINT as f64;
    let fits = den != 0
        && (x * den as f64).abs() <= m
        && (y * den as f64).abs() <= m
        && den.wrapping_rem(xd) == 0
        && den.wrapping_rem(yd) == 0;
    fits.then_some(den)
}

/// The range `start_n/den : step_n/den`, `len` long (Julia's `floatrange`).
fn floatrange(start_n: i64, step_n: i64, len: i64, den: i64) -> Result<FloatRange, String> {
    let (n, d) = (i128::from(start_n), i128::from(den));
    if len < 2 || step_n == 0 {
        return step_range_len(ratio(n, d), ratio(step_n.into(), d), len, 1);
    }
    let imin = round_int(start_n.wrapping_neg() as f64 / step_n as f64 + 1.0)?.clamp(1, len);
    let ref_n = start_n.wrapping_add((imin - 1).wrapping_mul(step_n));
    let nb = nbitslen(len, imin);
    let step = truncated(ratio(step_n.into(), d), nb);
    step_range_len(ratio(ref_n.into(), d), step, len, imin)
}

/// `start:step:stop`.
fn colon(start: f64, step: f64, stop: f64) -> Result<FloatRange, String> {
    if step == 0.0 {
        return Err("ArgumentError: range step cannot be zero".into());
    }
    let (step_n, step_d) = rat(step);
    if step_d != 0 && equals_ratio(step_n, step_d, step) {
        let (start_n, start_d) = rat(start);
        let (stop_n, stop_d) = rat(stop);
        if start_d != 0
            && stop_d != 0
            && equals_ratio(start_n, start_d, start)
            && equals_ratio(stop_n, stop_d, stop)
        {
            if let Some(den) = common_denominator(start, start_d, step, step_d) {
                let start_n = round_int(start * den as f64)?;
                let step_n = round_int(step * den as f64)?;
                let num = den
                    .wrapping_mul(stop_n)
                    .wrapping_sub(stop_d.wrapping_mul(start_n))
                    .wrapping_add(step_n.wrapping_mul(stop_d));
                let len = num
                    .checked_div(step_n.wrapping_mul(stop_d))
                    .ok_or("DivideError: integer division error")?
                    .max(0);
                if isbetween(start, start + (len - 1) as f64 * step, stop + step / 2.0)
                    && !isbetween(start, start + len as f64 * step, stop)
                {
                    return floatrange(start_n, step_n, len, den);
                }
            }
        }
    }
    // Start and step taken literally.
    let lf = (stop - start) / step;
    let len = if lf < 0.0 {
        0
    } else if lf == 0.0 {
        1
    } else {
        let len = round_int(lf)?.wrapping_add(1);
        let stop2 = start + (len - 1) as f64 * step;
        let over = (start < stop && stop < stop2) as i64 + (start > stop && stop > stop2) as i64;
        len - over
    };
    step_range_len(twice(start, 0.0), twice(step, 0.0), len, 1)
}

/// `range(start; step, length)`.
fn start_step_length(a: f64, st: f64, len: i64) -> Result<FloatRange, String> {
    let (start_n, start_d) = rat(a);
    let (step_n, step_d) = rat(st);
    if start_d != 0
        && step_d != 0
        && equals_ratio(start_n, start_d, a)
        && equals_ratio(step_n, step_d, st)
    {
        let den = lcm_unchecked(start_d, step_d);
        let m = MAXINT as f64;
        if (den as f64 * a).abs() <= m
            && (den as f64 * st).abs() <= m
            && den.wrapping_rem(start_d) == 0
            && den.wrapping_rem(step_d) == 0
        {
            let start_n = round_int(den as f64 * a)?;
            let step_n = round_int(den as f64 * st)?;
            return floatrange(start_n, step_n, len, den);
        }
    }
    step_range_len(twice(a, 0.0), twice(st, 0.0), len, 1)
}

/// `range(start, stop; length)` (Julia's `_range(start, nothing, stop, len)`).
fn start_stop_length(start: f64, stop: f64, len: i64) -> Result<FloatRange, String> {
    if len < 2 {
        return linspace1(start, stop, len);
    }
    if start == stop {
        return step_range_len(twice(start, 0.0), twice(0.0, 0.0), len, 1);
    }
    let (_, start_d) = rat(start);
    let (_, stop_d) = rat(stop);
    if start_d != 0 && stop_d != 0 {
        let den = lcm_unchecked(start_d, stop_d);
        let m = MAXINT as f64;
        if den != 0 && (den as f64 * start).abs() <= m && (den as f64 * stop).abs() <= m {
            let start_n = round_int(den as f64 * start)?;
            let stop_n = round_int(den as f64 * stop)?;
            if equals_ratio(start_n, den, start) && equals_ratio(stop_n, den, stop) {
                return linspace_rational(start_n, stop_n, len, den);
            }
        }
    }
    linspace_float(start, stop, len)
}

/// A range of fewer than two elements (Julia's `_linspace1`).
fn linspace1(start: f64, stop: f64, len: i64) -> Result<FloatRange, String> {
    let shown = || {
        format!(
            "range({}, stop={}, length={len})",
            show(&Value::F64(start)),
            show(&Value::F64(stop))
        )
    };
    if len < 0 {
        return Err(format!("ArgumentError: {}: negative length", shown()));
    }
    if len == 1 && start != stop {
        return Err(format!("ArgumentError: {}: endpoints differ", shown()));
    }
    step_range_len(twice(start, 0.0), twice(start, -stop), len, 1)
}

/// From `start_n / den` to `stop_n / den` in `len` points, exactly.
fn linspace_rational(start_n: i64, stop_n: i64, len: i64, den: i64) -> Result<FloatRange, String> {
    let d = i128::from(den);
    if start_n == stop_n {
        return step_range_len(ratio(start_n.into(), d), ratio(0, d), len, 1);
    }
    let tmin = start_n.wrapping_neg() as f64 / (stop_n as f64 - start_n as f64);
    let imin = round_int(tmin * (len - 1) as f64 + 1.0)?.clamp(1, len);
    let ref_num =
        i128::from(len - imin) * i128::from(start_n) + i128::from(imin - 1) * i128::from(stop_n);
    let ref_denom = i128::from(len - 1) * d;
    let step = ratio(i128::from(stop_n) - i128::from(start_n), ref_denom);
    let nb = nbitslen(len, imin);
    step_range_len(ratio(ref_num, ref_denom), truncated(step, nb), len, imin)
}

/// From `start` to `stop` in `len` points, for ends without a small rational form.
fn linspace_float(start: f64, stop: f64, len: i64) -> Result<FloatRange, String> {
    if !(start.is_finite() && stop.is_finite()) {
        return Err(format!(
            "ArgumentError: start and stop must be finite, got {} and {}",
            show(&Value::F64(start)),
            show(&Value::F64(stop))
        ));
    }
    let (mut delta, mut dfac) = (stop - start, 1_i64);
    if !delta.is_finite() {
        delta = stop / len as f64 - start / len as f64;
        dfac = len;
    }
    let tmin = -(start / delta) / dfac as f64;
    let mut imin = round_int(tmin * (len - 1) as f64 + 1.0)?;
    let (reference, step);
    if 1 < imin && imin < len {
        let t = (imin - 1) as f64 / (len - 1) as f64;
        reference = (1.0 - t) * start + t * stop;
        step = if imin - 1 < len - imin {
            (reference - start) / (imin - 1) as f64
        } else {
            (stop - reference) / (len - imin) as f64
        };
    } else if imin <= 1 {
        imin = 1;
        reference = start;
        step = (delta / (len - 1) as f64) * dfac as f64;
    } else {
        imin = len;
        reference = stop;
        step = (delta / (len - 1) as f64) * dfac as f64;
    }
    if len == 2 && !step.is_finite() {
        return step_range_len(twice(start, 0.0), twice(-start, stop), 2, 1);
    }
    let m = f64::from_bits(f64::MAX.to_bits() - 1);
    let k = ((imin - 1).max(len - imin)) as f64;
    let lo = (-(m + reference) / k).max((-m + reference) / k);
    let hi = ((m - reference) / k).min((m + reference) / k);
    let step_hi_pre = if step > hi {
        hi
    } else if step < lo {
        lo
    } else {
        step
    };
    let step_hi = truncbits(step_hi_pre, nbitslen(len, imin));
    let (x1_hi, x1_lo) = add12((1 - imin) as f64 * step_hi, reference);
    let (x2_hi, x2_lo) = add12((len - imin) as f64 * step_hi, reference);
    let (a, b) = ((start - x1_hi) - x1_lo, (stop - x2_hi) - x2_lo);
    let step_lo = (b - a) / (len - 1) as f64;
    let ref_lo = a - (1 - imin) as f64 * step_lo;
    step_range_len(twice(reference, ref_lo), twice(step_hi, step_lo), len, imin)
}

/// An operation of Julia's on a `StepRangeLen` of Float64s whose result is again one
/// (`base/broadcast.jl`'s range methods, `base/twiceprecision.jl`'s and `base/range.jl`'s).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    /// `x .* r`: the reference element and step times `x`.
    Scale,
    /// `x * r`: as `Scale`, the step then truncated to `nbitslen(r)` bits.
    ScaleTruncated,
    /// `r ./ x`.
    Divide,
    /// `r / x`: as `Divide`, the step then truncated.
    DivideTruncated,
    /// `r .+ x`: the reference element plus `x`.
    Shift,
    /// `x .- r`: `x` minus the reference element, the step negated.
    SubtractFrom,
    /// `-r`.
    Negate,
    /// `reverse(r)`.
    Reverse,
    /// `r[s]` for the Int range `s` given as `(first, step, length)`.
    Slice,
    /// `r1 + r2`, the other range given by its parts.
    Add,
}

impl Op {
    /// The operation a `float_range_op` operand names (1 to 10).
    pub fn from_code(k: i64) -> Option<Op> {
        use Op::*;
        [
            Scale,
            ScaleTruncated,
            Divide,
            DivideTruncated,
            Shift,
            SubtractFrom,
            Negate,
            Reverse,
            Slice,
            Add,
        ]
        .get(usize::try_from(k).ok()?.checked_sub(1)?)
        .copied()
    }
}

impl Twice {
    fn neg(self) -> Twice {
        twice(-self.hi, -self.lo)
    }

    /// `x + y` of a `TwicePrecision` and a number.
    fn plus(self, y: f64) -> Twice {
        let (s_hi, s_lo) = add12(self.hi, y);
        let (h, l) = canonicalize2(s_hi, s_lo + self.lo);
        twice(h, l)
    }

    /// `x + y` of two `TwicePrecision`s.
    fn plus_twice(self, y: Twice) -> Twice {
        let r = self.hi + y.hi;
        let s = if self.hi.abs() > y.hi.abs() {
            (((self.hi - r) + y.hi) + y.lo) + self.lo
        } else {
            (((y.hi - r) + self.hi) + self.lo) + y.lo
        };
        let (h, l) = canonicalize2(r, s);
        twice(h, l)
    }

    /// `x * y` of two `TwicePrecision`s.
    fn times_twice(self, y: Twice) -> Twice {
        let (zh, zl) = mul12(self.hi, y.hi);
        if zh == 0.0 || !zh.is_finite() {
            return twice(zh, zh);
        }
        let (h, l) = canonicalize2(zh, (self.hi * y.lo + self.lo * y.hi) + zl);
        twice(h, l)
    }

    /// `x * v` of a `TwicePrecision` and a number: an Int splits `hi` so the product is
    /// exact, a Float64 multiplies at twice precision.
    fn times(self, v: &Value) -> Result<Twice, String> {
        match v {
            Value::Int(k) => Ok(times_int(self, *k)),
            Value::F64(x) if *x == 0.0 => Ok(twice(self.hi * x, self.lo * x)),
            Value::F64(x) => Ok(self.times_twice(twice(*x, 0.0))),
            other => Err(format!(
                "MethodError: no method matching *(::TwicePrecision{{Float64}}, {})",
                show(other)
            )),
        }
    }

    /// `x / v` of a `TwicePrecision` and a number.
    fn over(self, v: &Value) -> Result<Twice, String> {
        Ok(divide(self, twice(number(v)?, 0.0)))
    }
}

/// A number operand as a Float64.
fn number(v: &Value) -> Result<f64, String> {
    match v {
        Value::Int(k) => Ok(*k as f64),
        Value::F64(x) => Ok(*x),
        other => Err(format!(
            "MethodError: a range operation with {}",
            show(other)
        )),
    }
}

/// An Int operand.
fn int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(k) => Ok(*k),
        other => Err(format!(
            "MethodError: a range operation with {}",
            show(other)
        )),
    }
}

impl FloatRange {
    /// The range of the parts `(ref_hi, ref_lo, step_hi, step_lo, len, offset)`.
    fn of_parts(parts: &Value) -> Result<FloatRange, String> {
        let items = match parts {
            Value::Tuple(items) if items.len() == 6 => items,
            other => {
                return Err(format!(
                    "float_range_op: not a range's parts: {}",
                    show(other)
                ))
            }
        };
        Ok(FloatRange {
            reference: twice(number(&items[0])?, number(&items[1])?),
            step: twice(number(&items[2])?, number(&items[3])?),
            len: int(&items[4])?,
            offset: int(&items[5])?,
        })
    }

    /// Element `i` to twice precision (Julia's `_getindex_hiprec`).
    fn at_twice(&self, i: i64) -> Twice {
        let u = (i - self.offset) as f64;
        let (shift_hi, shift_lo) = (u * self.step.hi, u * self.step.lo);
        let (x_hi, x_lo) = add12(self.reference.hi, shift_hi);
        let (h, l) = add12(x_hi, x_lo + (shift_lo + self.reference.lo));
        twice(h, l)
    }

    /// `nbitslen(r)`.
    fn nbits(&self) -> u32 {
        nbitslen(self.len, self.offset)
    }

    /// Julia's result of `op` on this range with the operand `x`.
    pub fn apply(&self, op: Op, x: &Value) -> Result<FloatRange, String> {
        let (r, len, offset) = (self.reference, self.len, self.offset);
        match op {
            Op::Scale => step_range_len(r.times(x)?, self.step.times(x)?, len, offset),
            Op::ScaleTruncated => {
                let step = truncated(self.step.times(x)?, self.nbits());
                step_range_len(r.times(x)?, step, len, offset)
            }
            Op::Divide => step_range_len(r.over(x)?, self.step.over(x)?, len, offset),
            Op::DivideTruncated => {
                let step = truncated(self.step.over(x)?, self.nbits());
                step_range_len(r.over(x)?, step, len, offset)
            }
            Op::Shift => step_range_len(r.plus(number(x)?), self.step, len, offset),
            Op::SubtractFrom => {
                step_range_len(r.neg().plus(number(x)?), self.step.neg(), len, offset)
            }
            Op::Negate => step_range_len(r.neg(), self.step.neg(), len, offset),
            Op::Reverse => {
                let offset = if len == 0 { offset } else { len - offset + 1 };
                step_range_len(r, self.step.neg(), len, offset)
            }
            Op::Slice => self.slice(x),
            Op::Add => self.add(&FloatRange::of_parts(x)?),
        }
    }

    /// `r[s]` for the Int range `s = (first, step, length)`, already bounds-checked.
    fn slice(&self, s: &Value) -> Result<FloatRange, String> {
        let (first, step, len) = match s {
            Value::Tuple(items) if items.len() == 3 => {
                (int(&items[0])?, int(&items[1])?, int(&items[2])?)
            }
            other => {
                return Err(format!(
                    "float_range_op: not an index range: {}",
                    show(other)
                ))
            }
        };
        if step == 0 {
            return Err("ArgumentError: step cannot be zero".into());
        }
        let soffset = 1 + round_int((self.offset - first) as f64 / step as f64)?;
        // Julia's `clamp(soffset, 1, len)`, which gives `len` (0) for an empty `s`.
        let soffset = if soffset > len { len } else { soffset.max(1) };
        let ioffset = first + (soffset - 1) * step;
        let new_step = if step == 1 || len < 2 {
            self.step
        } else {
            truncated(times_int(self.step, step), nbitslen(len, soffset))
        };
        let reference = if ioffset == self.offset {
            self.reference
        } else {
            self.reference
                .plus_twice(times_int(self.step, ioffset - self.offset))
        };
        step_range_len(reference, new_step, len, soffset.max(1))
    }

    /// `r1 + r2` of two ranges of one length.
    fn add(&self, other: &FloatRange) -> Result<FloatRange, String> {
        let len = self.len;
        if len != other.len {
            return Err(format!(
                "DimensionMismatch: argument dimensions must match: length of r1 is {len}, \
                 length of r2 is {}",
                other.len
            ));
        }
        let (imid, reference) = if self.offset == other.offset {
            (self.offset, self.reference.plus_twice(other.reference))
        } else {
            let imid = round_int((self.offset + other.offset) as f64 / 2.0)?;
            (imid, self.at_twice(imid).plus_twice(other.at_twice(imid)))
        };
        let step = truncated(self.step.plus_twice(other.step), nbitslen(len, imid));
        step_range_len(reference, step, len, imid)
    }

    /// The tuple the prelude's `StepRangeLen` is built from: `(ref_hi, ref_lo, step_hi,
    /// step_lo, len, offset, sum, a, b)`.
    fn to_value(self, a: f64, b: f64) -> Value {
        Value::Tuple(
            [
                Value::F64(self.reference.hi),
                Value::F64(self.reference.lo),
                Value::F64(self.step.hi),
                Value::F64(self.step.lo),
                Value::Int(self.len),
                Value::Int(self.offset),
                Value::F64(self.sum()),
                Value::F64(a),
                Value::F64(b),
            ]
            .into(),
        )
    }
}

/// `float_range_op(op, parts, x)`: the representation (as `float_range` gives it) of the
/// range operation `op` (an [`Op`] code) makes from the range of `parts` and the operand `x`
/// (a number, an Int range's `(first, step, length)` or another range's parts); its last two
/// elements are `x` again when it is a number, else zero.
pub(super) fn float_range_op(op: &Value, parts: &Value, x: &Value) -> Result<Value, String> {
    let op = match op {
        Value::Int(k) => {
            Op::from_code(*k).ok_or_else(|| format!("float_range_op: no operation {k}"))?
        }
        other => return Err(format!("float_range_op: no operation {}", show(other))),
    };
    let r = FloatRange::of_parts(parts)?.apply(op, x)?;
    let a = number(x).unwrap_or(0.0);
    Ok(r.to_value(a, a))
}

/// `float_range(form, a, b, c)`: the tuple `(ref_hi, ref_lo, step_hi, step_lo, len, offset,
/// sum, a, b)` of the range's representation, Julia's sum, and `a` and `b` themselves.
pub(super) fn float_range(form: &Value, a: &Value, b: &Value, c: &Value) -> Result<Value, String> {
    let (Value::Int(k), Value::F64(x), Value::F64(y)) = (form, a, b) else {
        return Err(crate::prim::method_error(
            "float_range",
            &[form.clone(), a.clone(), b.clone(), c.clone()],
        ));
    };
    let form = Form::from_code(*k).ok_or_else(|| format!("float_range: no form {k}"))?;
    Ok(FloatRange::new(form, *x, *y, c)?.to_value(*x, *y))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Element `i`, as the prelude's `_srl_at` computes it (Julia's `unsafe_getindex`).
    fn at(r: &FloatRange, i: i64) -> f64 {
        let u = (i - r.offset) as f64;
        let (x_hi, x_lo) = add12(r.reference.hi, u * r.step.hi);
        x_hi + (x_lo + (u * r.step.lo + r.reference.lo))
    }

    fn elements(r: &FloatRange) -> Vec<f64> {
        (1..=r.len).map(|i| at(r, i)).collect()
    }

    fn colon_of(a: f64, s: f64, b: f64) -> FloatRange {
        FloatRange::new(Form::Colon, a, s, &Value::F64(b)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn linspace(a: f64, b: f64, n: i64) -> FloatRange {
        FloatRange::new(Form::StopLength, a, b, &Value::Int(n)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn plain_ranges_keep_their_parts_exactly() {
        let r = FloatRange::new(Form::Plain, 0.1, 0.2, &Value::Int(4))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            elements(&r),
            [0.1, 0.1 + 0.2, 0.1 + 2.0 * 0.2, 0.1 + 3.0 * 0.2]
        );
        assert!(FloatRange::new(Form::Plain, 0.0, 1.0, &Value::Int(-1)).is_err());
    }

    #[test]
    fn decimal_steps_land_on_their_decimals() {
        assert_eq!(elements(&colon_of(0.1, 0.1, 0.3)), [0.1, 0.2, 0.3]);
        assert_eq!(elements(&colon_of(0.0, 0.1, 0.3)), [0.0, 0.1, 0.2, 0.3]);
        let tenths: Vec<f64> = (0..=10).map(|k| k as f64 / 10.0).collect();
        assert_eq!(elements(&colon_of(0.0, 0.1, 1.0)), tenths);
        assert_eq!(elements(&linspace(0.0, 1.0, 11)), tenths);
        assert_eq!(elements(&colon_of(1.0, -0.3, 0.0)), [1.0, 0.7, 0.4, 0.1]);
    }

    #[test]
    fn lengths_and_ends_follow_julia() {
        assert_eq!(colon_of(0.0, 0.1, 0.35).len, 4);
        assert_eq!(colon_of(1.0, 1.0, 0.0).len, 0);
        assert_eq!(colon_of(1.5, 1.0, 1.5).len, 1);
        let r = linspace(-1.0, 1.0, 5);
        assert_eq!(elements(&r), [-1.0, -0.5, 0.0, 0.5, 1.0]);
        assert_eq!(r.offset, 3);
        assert_eq!(colon_of(0.1, 0.1, 0.3).sum(), 0.6);
        // π has no small rational form: its ends are met exactly all the same.
        let p = linspace(0.0, std::f64::consts::PI, 7);
        assert_eq!(at(&p, 7), std::f64::consts::PI);
        assert_eq!(at(&p, 1), 0.0);
    }

    #[test]
    fn operations_give_julias_ranges() {
        let r = colon_of(0.0, 0.1, 1.0);
        let apply = |op: Op, x: Value| r.apply(op, &x).unwrap_or_else(|e| panic!("{e}"));
        // TwicePrecision * Int splits the step's high part: 0.3 and 0.6 exact, the fourth
        // element Julia's 0.8999999999999999.
        let three = elements(&apply(Op::Scale, Value::Int(3)));
        assert_eq!(&three[..4], [0.0, 0.3, 0.6, 0.8999999999999999]);
        assert_eq!(three[10], 3.0);
        // `r .* 0.5` renormalises the step; `0.5 * r` truncates it again.
        assert_eq!(
            elements(&apply(Op::Scale, Value::F64(0.5)))[3],
            0.15000000000000002
        );
        assert_eq!(
            elements(&apply(Op::ScaleTruncated, Value::F64(0.5)))[3],
            0.15
        );
        let tenths: Vec<f64> = (0..=10).map(|k| k as f64 / 100.0).collect();
        assert_eq!(elements(&apply(Op::Divide, Value::Int(10))), tenths);
        assert_eq!(elements(&apply(Op::Shift, Value::F64(1.0)))[3], 1.3);
        assert_eq!(elements(&apply(Op::SubtractFrom, Value::F64(2.0)))[3], 1.7);
        let back = colon_of(0.0, 0.1, 0.5).apply(Op::Reverse, &Value::Int(0));
        assert_eq!(
            elements(&back.unwrap_or_else(|e| panic!("{e}"))),
            [0.5, 0.4, 0.3, 0.2, 0.1, 0.0]
        );
        let odd = apply(
            Op::Slice,
            Value::Tuple([Value::Int(1), Value::Int(2), Value::Int(6)].into()),
        );
        assert_eq!(elements(&odd), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        let parts = |r: &FloatRange| {
            Value::Tuple(
                [r.reference.hi, r.reference.lo, r.step.hi, r.step.lo]
                    .map(Value::F64)
                    .into_iter()
                    .chain([Value::Int(r.len), Value::Int(r.offset)])
                    .collect(),
            )
        };
        let twice_r: Vec<f64> = (0..=10).map(|k| k as f64 / 5.0).collect();
        assert_eq!(elements(&apply(Op::Add, parts(&r))), twice_r);
        let zero = apply(Op::Add, parts(&apply(Op::Negate, Value::Int(0))));
        assert_eq!(
            (zero.step.hi + zero.step.lo, elements(&zero)[10]),
            (0.0, 0.0)
        );
    }

    #[test]
    fn bad_ranges_are_julias_errors() {
        let err = |f: Form, a: f64, b: f64, c: Value| FloatRange::new(f, a, b, &c).unwrap_err();
        assert!(err(Form::Colon, 0.0, 0.0, Value::F64(1.0)).contains("step cannot be zero"));
        assert!(err(Form::StopLength, 0.0, 1.0, Value::Int(1)).contains("endpoints differ"));
        assert!(err(Form::StopLength, 0.0, 1.0, Value::Int(-1)).contains("negative length"));
        assert!(err(Form::StepLength, 0.0, 1.0, Value::Int(-2)).contains("cannot be negative"));
        assert!(err(Form::Colon, 0.0, 1.0, Value::F64(f64::INFINITY)).starts_with("InexactError"));
    }
}
