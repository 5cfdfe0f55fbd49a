//! Inline translation of scalar primitives on `Float64`, `Int64` and `Bool`. What is not
//! translated here (elementary functions, powers, error cases) goes to the runtime: an
//! elementary function of the primitive table to its runtime symbol, the rest to the
//! interpreter's code where the table allows it.

use cranelift_codegen::ir::{
    condcodes::FloatCC, condcodes::IntCC, types, InstBuilder, MemFlagsData,
};
use zy_ir::{Const, Domain, Operand, Prim, Span, Type};

use super::{ClValue, Translator, R};

impl Translator<'_, '_, '_> {
    /// The inline translation of `p` on operands of types `tys`, if there is one.
    pub(super) fn scalar(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        if p == Prim::Undef {
            return Ok(Some(Vec::new()));
        }
        if let (Prim::IsDefinedLocal, [x]) = (p, args) {
            return Ok(Some(vec![self.is_defined(x)]));
        }
        if let (Prim::IfElse, [Type::Bool, a, b]) = (p, tys) {
            if a != ty || b != ty {
                return Ok(None);
            }
            let c = self.operand(&args[0])?;
            let (x, y) = (
                self.operand_as(&args[1], ty)?,
                self.operand_as(&args[2], ty)?,
            );
            let [c] = c.as_slice() else { return Ok(None) };
            let out = x
                .iter()
                .zip(&y)
                .map(|(x, y)| self.b.ins().select(*c, *x, *y))
                .collect();
            return Ok(Some(out));
        }
        let numbers = |t: &Type| t.is_number() || matches!(t, Type::Float32 | Type::Int(_));
        if !tys.iter().chain([ty]).all(numbers) {
            return Ok(None);
        }
        if tys.contains(&Type::Float32) || *ty == Type::Float32 {
            return self.single(p, args, tys, ty, span);
        }
        if tys.iter().chain([ty]).any(|t| matches!(t, Type::Int(_))) {
            return self.sized(p, args, tys, ty);
        }
        if !tys.iter().all(Type::is_number) || !ty.is_number() {
            return Ok(None);
        }
        let mut xs = Vec::new();
        for a in args {
            match self.operand(a)?.as_slice() {
                [x] => xs.push(*x),
                _ => return Ok(None),
            }
        }
        let square = args.get(1) == Some(&Operand::Const(Const::Int(2)));
        let slow = Slow {
            p,
            args,
            ty,
            span,
            whole: false,
        };
        Ok(self
            .scalar_values(p, &xs, tys, ty, square, &slow)?
            .map(|v| vec![v]))
    }

    /// `p` on the scalar values `xs` of types `tys`, giving a `ty`; `square` says the exponent
    /// of a power is the constant 2. `slow` is the statement the runtime evaluates when an
    /// inline check fails (it raises the error).
    pub(super) fn scalar_values(
        &mut self,
        p: Prim,
        xs: &[ClValue],
        tys: &[Type],
        ty: &Type,
        square: bool,
        slow: &Slow<'_>,
    ) -> R<Option<ClValue>> {
        if !tys.iter().all(Type::is_number)
            || !ty.is_number()
            || tys.is_empty()
            || tys.len() > 3
            || xs.len() != tys.len()
        {
            return Ok(None);
        }
        Ok(match (tys, ty) {
            ([Type::Float64], Type::Float64) => self.float_unary(p, xs[0], slow)?,
            ([Type::Float64, Type::Float64], _) => self.float_binary(p, xs[0], xs[1], ty),
            ([Type::Float64, Type::Float64, Type::Float64], Type::Float64) if p == Prim::Fma => {
                Some(self.b.ins().fma(xs[0], xs[1], xs[2]))
            }
            ([Type::Float64, Type::Int64], Type::Float64) if p == Prim::Pow => {
                if square {
                    Some(self.b.ins().fmul(xs[0], xs[0]))
                } else {
                    let rt = self.env.rt.powi;
                    self.call_rt(rt, &[xs[0], xs[1]])
                }
            }
            ([Type::Int64], _) => self.int_unary(p, xs[0], ty),
            ([Type::Int64, Type::Int64], _) => self.int_binary(p, xs[0], xs[1], ty, slow)?,
            ([Type::Int64, Type::Int64, Type::Int64], Type::Int64) if p == Prim::RangeLength => {
                Some(self.range_length(xs[0], xs[1], xs[2], slow)?)
            }
            ([Type::Bool], _) => self.bool_unary(p, xs[0], ty),
            ([Type::Bool, Type::Bool], Type::Bool) => self.bool_binary(p, xs[0], xs[1]),
            _ => None,
        })
    }

    /// A Float32 operation, its operands and result held as their exact Float64 values
    /// (`layout`): `+ - * /`, the unary operations and the elementary functions computed on
    /// them and rounded once to a Float32, as the interpreter computes them (for `+ - * /`
    /// and `sqrt` the single-precision operation itself: the Float64 result of two Float32s is
    /// close enough that rounding it once is rounding the exact one); comparisons exact;
    /// `Float64(x)`, and `Float32(x)` of a Float64 or an Int. `None` for the rest.
    fn single(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
        span: Span,
    ) -> R<Option<Vec<ClValue>>> {
        let mut xs = Vec::new();
        for a in args {
            match self.operand(a)?.as_slice() {
                [x] => xs.push(*x),
                _ => return Ok(None),
            }
        }
        let slow = Slow {
            p,
            args,
            ty,
            span,
            whole: false,
        };
        let (f32_, f64_) = (&Type::Float32, &Type::Float64);
        let out = match (p, tys, ty) {
            (Prim::Float, [x], t) if x == f32_ && t == f64_ => Some(xs[0]),
            (Prim::ToFloat32, [x], _) if x == f32_ => Some(xs[0]),
            (Prim::ToFloat32, [x], _) if x == f64_ => Some(self.round_single(xs[0])),
            (Prim::ToFloat32, [Type::Int64], _) => {
                let s = self.b.ins().fcvt_from_sint(types::F32, xs[0]);
                Some(self.b.ins().fpromote(types::F64, s))
            }
            (Prim::Add | Prim::Sub | Prim::Mul | Prim::Div, [x, y], t)
                if x == f32_ && y == f32_ && t == f32_ =>
            {
                let r = self.float_binary(p, xs[0], xs[1], f64_);
                r.map(|r| self.round_single(r))
            }
            (_, [x, y], Type::Bool) if x == f32_ && y == f32_ => {
                self.float_binary(p, xs[0], xs[1], ty)
            }
            (_, [x], t) if x == f32_ && t == f32_ => {
                let r = self.float_unary(p, xs[0], &slow)?;
                r.map(|r| self.round_single(r))
            }
            _ => None,
        };
        Ok(out.map(|v| vec![v]))
    }

    /// An operation of fixed-width integers of one type, held as the interpreter holds them
    /// (`layout`): `+ - *` wrapped to the type's width, as Julia's intrinsics wrap, and
    /// comparisons. `None` for the rest.
    fn sized(
        &mut self,
        p: Prim,
        args: &[Operand],
        tys: &[Type],
        ty: &Type,
    ) -> R<Option<Vec<ClValue>>> {
        let ([Type::Int(k), Type::Int(l)], [a, b]) = (tys, args) else {
            return Ok(None);
        };
        if k != l {
            return Ok(None);
        }
        let (x, y) = match (self.operand(a)?.as_slice(), self.operand(b)?.as_slice()) {
            (&[x], &[y]) => (x, y),
            _ => return Ok(None),
        };
        // Held as its value, but for a `UInt64`'s bits: its order is the unsigned one.
        let unsigned = *k == zy_ir::IntKind::UInt64;
        let cc = |signed, unsigned_cc| if unsigned { unsigned_cc } else { signed };
        let out = match (p, ty) {
            (Prim::Add | Prim::Sub | Prim::Mul, Type::Int(t)) if t == k => {
                let ins = self.b.ins();
                let r = match p {
                    Prim::Add => ins.iadd(x, y),
                    Prim::Sub => ins.isub(x, y),
                    _ => ins.imul(x, y),
                };
                Some(self.wrap_int(*k, r))
            }
            (Prim::Eq, Type::Bool) => Some(self.b.ins().icmp(IntCC::Equal, x, y)),
            (Prim::Ne, Type::Bool) => Some(self.b.ins().icmp(IntCC::NotEqual, x, y)),
            (Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge, Type::Bool) => {
                let c = match p {
                    Prim::Lt => cc(IntCC::SignedLessThan, IntCC::UnsignedLessThan),
                    Prim::Le => cc(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual),
                    Prim::Gt => cc(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
                    _ => cc(
                        IntCC::SignedGreaterThanOrEqual,
                        IntCC::UnsignedGreaterThanOrEqual,
                    ),
                };
                Some(self.b.ins().icmp(c, x, y))
            }
            _ => None,
        };
        Ok(out.map(|v| vec![v]))
    }

    /// The Int64 `x` wrapped to the width of `k`, held as the interpreter holds it: the low
    /// bits sign-extended for a signed type, zero-extended for an unsigned one.
    fn wrap_int(&mut self, k: zy_ir::IntKind, x: ClValue) -> ClValue {
        let bits = k.bits();
        if bits >= 64 {
            return x;
        }
        if k.signed() {
            let up = self.b.ins().ishl_imm_u(x, i64::from(64 - bits));
            self.b.ins().sshr_imm_u(up, i64::from(64 - bits))
        } else {
            self.b.ins().band_imm_u(x, (1i64 << bits) - 1)
        }
    }

    /// The Float64 `x` rounded to the nearest Float32 (as a Float64).
    fn round_single(&mut self, x: ClValue) -> ClValue {
        let s = self.b.ins().fdemote(types::F32, x);
        self.b.ins().fpromote(types::F64, s)
    }

    /// The runtime's evaluation of `slow`, producing one value of scalar type `ty`.
    pub(super) fn slow_path(
        &mut self,
        slow: &Slow<'_>,
        ty: cranelift_codegen::ir::Type,
    ) -> R<Vec<ClValue>> {
        let out = self.fallback(slow.p, slow.args, slow.ty, slow.span)?;
        if !slow.whole {
            return Ok(out);
        }
        // The whole statement raised the error (so control never gets here); keep the types.
        Ok(vec![if ty == types::F64 {
            self.b.ins().f64const(0.0)
        } else {
            self.b.ins().iconst(ty, 0)
        }])
    }

    fn float_unary(&mut self, p: Prim, x: ClValue, slow: &Slow<'_>) -> R<Option<ClValue>> {
        let ins = self.b.ins();
        Ok(Some(match p {
            Prim::Neg => ins.fneg(x),
            Prim::Abs => ins.fabs(x),
            Prim::Floor => ins.floor(x),
            Prim::Ceil => ins.ceil(x),
            Prim::Round => ins.nearest(x),
            Prim::Float => x,
            Prim::Zero => ins.f64const(0.0),
            Prim::One => ins.f64const(1.0),
            Prim::Sign => {
                // sign(x) = x > 0 ? 1.0 : x < 0 ? -1.0 : x (keeps ±0.0 and NaN)
                let zero = ins.f64const(0.0);
                let one = self.b.ins().f64const(1.0);
                let m1 = self.b.ins().f64const(-1.0);
                let pos = self.b.ins().fcmp(FloatCC::GreaterThan, x, zero);
                let neg = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
                let r = self.b.ins().select(neg, m1, x);
                self.b.ins().select(pos, one, r)
            }
            Prim::Sqrt => {
                // sqrt of a negative number is a DomainError: the runtime raises it.
                let zero = ins.f64const(0.0);
                let neg = self.b.ins().fcmp(FloatCC::LessThan, x, zero);
                self.domain_checked(neg, slow, 1, |t| Ok(vec![t.b.ins().sqrt(x)]))?[0]
            }
            p if p.math().is_some() => {
                let Some(id) = self.env.rt.math[p as usize] else {
                    return Ok(None);
                };
                if let Some(Domain::NanResult(_)) = p.math().map(|m| m.domain) {
                    // Julia's `nan_dom_err`: the evaluation decides.
                    let y = self.call_rt(id, &[x]).unwrap_or(x);
                    let y_nan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
                    let x_num = self.b.ins().fcmp(FloatCC::Ordered, x, x);
                    let bad = self.b.ins().band(y_nan, x_num);
                    return Ok(Some(self.domain_checked(bad, slow, 1, |_| Ok(vec![y]))?[0]));
                }
                match self.domain_check(p, x) {
                    None => self.call_rt(id, &[x]).unwrap_or(x),
                    Some(bad) => self.domain_checked(bad, slow, 1, |t| {
                        Ok(vec![t.call_rt(id, &[x]).unwrap_or(x)])
                    })?[0],
                }
            }
            _ => return Ok(None),
        }))
    }

    /// The condition under which an elementary function raises a DomainError (its domain in
    /// the primitive table), if it can.
    fn domain_check(&mut self, p: Prim, x: ClValue) -> Option<ClValue> {
        let ins = self.b.ins();
        match p.math()?.domain {
            Domain::All => None,
            Domain::Finite(_) => {
                let ax = ins.fabs(x);
                let inf = self.b.ins().f64const(f64::INFINITY);
                Some(self.b.ins().fcmp(FloatCC::Equal, ax, inf))
            }
            Domain::AtLeast(a, _) => {
                let a = ins.f64const(a);
                Some(self.b.ins().fcmp(FloatCC::LessThan, x, a))
            }
            Domain::UnitInterval(_) => {
                let ax = ins.fabs(x);
                let one = self.b.ins().f64const(1.0);
                Some(self.b.ins().fcmp(FloatCC::GreaterThan, ax, one))
            }
            // Checked on the result, by the caller.
            Domain::NanResult(_) => None,
        }
    }

    /// Julia's `max`/`min` on Float64: a NaN operand wins, and `-0.0 < 0.0`.
    fn julia_max_min(&mut self, is_max: bool, x: ClValue, y: ClValue) -> ClValue {
        let ins = self.b.ins();
        let xi = ins.bitcast(types::I64, MemFlagsData::new(), x);
        let yi = self.b.ins().bitcast(types::I64, MemFlagsData::new(), y);
        let sx = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, xi, 0);
        let sy = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, yi, 0);
        // max: y > x || (sign(y) < sign(x));  min: y < x || (sign(y) > sign(x))
        let (cc, signs) = if is_max {
            let nsy = self.b.ins().bxor_imm_s(sy, 1);
            (FloatCC::GreaterThan, self.b.ins().band(nsy, sx))
        } else {
            let nsx = self.b.ins().bxor_imm_s(sx, 1);
            (FloatCC::LessThan, self.b.ins().band(sy, nsx))
        };
        let better = self.b.ins().fcmp(cc, y, x);
        let take_y = self.b.ins().bor(better, signs);
        let xnan = self.b.ins().fcmp(FloatCC::Unordered, x, x);
        let ynan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        let when_y = self.b.ins().select(xnan, x, y);
        let when_x = self.b.ins().select(ynan, y, x);
        self.b.ins().select(take_y, when_y, when_x)
    }

    fn float_binary(&mut self, p: Prim, a: ClValue, b: ClValue, ty: &Type) -> Option<ClValue> {
        if *ty == Type::Float64 && matches!(p, Prim::Max | Prim::Min) {
            return Some(self.julia_max_min(p == Prim::Max, a, b));
        }
        let ins = self.b.ins();
        let cmp = |cc| Some(cc);
        let cc = match p {
            Prim::Lt => cmp(FloatCC::LessThan),
            Prim::Le => cmp(FloatCC::LessThanOrEqual),
            Prim::Gt => cmp(FloatCC::GreaterThan),
            Prim::Ge => cmp(FloatCC::GreaterThanOrEqual),
            Prim::Eq => cmp(FloatCC::Equal),
            Prim::Ne => cmp(FloatCC::NotEqual),
            _ => None,
        };
        if let Some(cc) = cc {
            return (*ty == Type::Bool).then(|| ins.fcmp(cc, a, b));
        }
        if *ty != Type::Float64 {
            return None;
        }
        Some(match p {
            Prim::Add => ins.fadd(a, b),
            Prim::Sub => ins.fsub(a, b),
            Prim::Mul => ins.fmul(a, b),
            Prim::Div => ins.fdiv(a, b),
            Prim::Copysign => ins.fcopysign(a, b),
            _ => return None,
        })
    }

    /// Julia's `hash(x::Int64, h)` (`zy_ir::ops::int_hash`): `int64hash(3|x| + bits(Float64(x))
    /// - h)`.
    fn hash_int(&mut self, x: ClValue, h: ClValue) -> ClValue {
        let abs = self.b.ins().iabs(x);
        let f = self.b.ins().fcvt_from_sint(types::F64, x);
        let bits = self.b.ins().bitcast(types::I64, MemFlagsData::new(), f);
        let three = self.b.ins().imul_imm_u(abs, 3);
        let k = self.b.ins().iadd(three, bits);
        let mut a = self.b.ins().isub(k, h);
        // Thomas Wang's mix, step by step as `int64hash`.
        let not = self.b.ins().bnot(a);
        let shl = self.b.ins().ishl_imm_u(a, 21);
        a = self.b.ins().iadd(not, shl);
        a = self.xor_shr(a, 24);
        let s3 = self.b.ins().ishl_imm_u(a, 3);
        let s8 = self.b.ins().ishl_imm_u(a, 8);
        let a3 = self.b.ins().iadd(a, s3);
        a = self.b.ins().iadd(a3, s8);
        a = self.xor_shr(a, 14);
        let s2 = self.b.ins().ishl_imm_u(a, 2);
        let s4 = self.b.ins().ishl_imm_u(a, 4);
        let a2 = self.b.ins().iadd(a, s2);
        a = self.b.ins().iadd(a2, s4);
        a = self.xor_shr(a, 28);
        let s31 = self.b.ins().ishl_imm_u(a, 31);
        self.b.ins().iadd(a, s31)
    }

    /// `a ⊻ (a >>> n)`.
    fn xor_shr(&mut self, a: ClValue, n: i64) -> ClValue {
        let shr = self.b.ins().ushr_imm_u(a, n);
        self.b.ins().bxor(a, shr)
    }

    fn int_unary(&mut self, p: Prim, x: ClValue, ty: &Type) -> Option<ClValue> {
        let ins = self.b.ins();
        match (p, ty) {
            (Prim::Neg, Type::Int64) => Some(ins.ineg(x)),
            (Prim::Abs, Type::Int64) => Some(ins.iabs(x)),
            (Prim::Floor | Prim::Ceil | Prim::Round | Prim::ToInt, Type::Int64) => Some(x),
            (Prim::Float, Type::Float64) => Some(ins.fcvt_from_sint(types::F64, x)),
            (Prim::Zero, Type::Int64) => Some(ins.iconst(types::I64, 0)),
            (Prim::One, Type::Int64) => Some(ins.iconst(types::I64, 1)),
            (Prim::Sign, Type::Int64) => {
                // sign(x) = (x > 0) - (x < 0)
                let pos = ins.icmp_imm_s(IntCC::SignedGreaterThan, x, 0);
                let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
                let pos = self.b.ins().uextend(types::I64, pos);
                let neg = self.b.ins().uextend(types::I64, neg);
                Some(self.b.ins().isub(pos, neg))
            }
            _ => None,
        }
    }

    fn int_binary(
        &mut self,
        p: Prim,
        a: ClValue,
        b: ClValue,
        ty: &Type,
        slow: &Slow<'_>,
    ) -> R<Option<ClValue>> {
        let cc = match p {
            Prim::Lt => Some(IntCC::SignedLessThan),
            Prim::Le => Some(IntCC::SignedLessThanOrEqual),
            Prim::Gt => Some(IntCC::SignedGreaterThan),
            Prim::Ge => Some(IntCC::SignedGreaterThanOrEqual),
            Prim::Eq => Some(IntCC::Equal),
            Prim::Ne => Some(IntCC::NotEqual),
            _ => None,
        };
        if let Some(cc) = cc {
            return Ok((*ty == Type::Bool).then(|| self.b.ins().icmp(cc, a, b)));
        }
        if *ty == Type::Float64 && p == Prim::Div {
            let fa = self.b.ins().fcvt_from_sint(types::F64, a);
            let fb = self.b.ins().fcvt_from_sint(types::F64, b);
            return Ok(Some(self.b.ins().fdiv(fa, fb)));
        }
        if *ty != Type::Int64 {
            return Ok(None);
        }
        if p == Prim::HashInt {
            return Ok(Some(self.hash_int(a, b)));
        }
        let ins = self.b.ins();
        Ok(Some(match p {
            Prim::Add => ins.iadd(a, b),
            Prim::Sub => ins.isub(a, b),
            Prim::Mul => ins.imul(a, b),
            Prim::Max => ins.smax(a, b),
            Prim::Min => ins.smin(a, b),
            Prim::AndInt => ins.band(a, b),
            Prim::OrInt => ins.bor(a, b),
            Prim::XorInt => ins.bxor(a, b),
            // Cranelift takes the shift amount mod 64, as the interpreter does.
            Prim::ShlInt => ins.ishl(a, b),
            Prim::AshrInt => ins.sshr(a, b),
            Prim::LshrInt => ins.ushr(a, b),
            Prim::IntDiv => {
                // DivideError on zero and on typemin ÷ -1: the runtime raises it.
                let zero = ins.icmp_imm_s(IntCC::Equal, b, 0);
                let min = self.b.ins().icmp_imm_s(IntCC::Equal, a, i64::MIN);
                let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                let ovf = self.b.ins().band(min, m1);
                let bad = self.b.ins().bor(zero, ovf);
                self.guarded(
                    bad,
                    &[types::I64],
                    |t| t.slow_path(slow, types::I64),
                    |t| Ok(vec![t.b.ins().sdiv(a, b)]),
                )?[0]
            }
            Prim::Rem => {
                // DivideError on zero; x % -1 is 0 (the machine instruction would trap on
                // typemin % -1, so divide by 1 instead).
                let zero = ins.icmp_imm_s(IntCC::Equal, b, 0);
                self.guarded(
                    zero,
                    &[types::I64],
                    |t| t.slow_path(slow, types::I64),
                    |t| {
                        let m1 = t.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
                        let one = t.b.ins().iconst(types::I64, 1);
                        let d = t.b.ins().select(m1, one, b);
                        Ok(vec![t.b.ins().srem(a, d)])
                    },
                )?[0]
            }
            _ => return Ok(None),
        }))
    }

    /// `range_length(a, s, b)`, the length of `a:s:b`, inline where it cannot fail: a step other
    /// than 0 and `typemin(Int)` and ends within ±2^62 (so `b - a` does not overflow); the
    /// runtime takes the rest and raises its errors (a zero step, a length past `typemax`).
    /// A loop over `1:n` asks for it each time it is entered.
    fn range_length(&mut self, a: ClValue, s: ClValue, b: ClValue, slow: &Slow<'_>) -> R<ClValue> {
        // |x| >= 2^62 exactly when x + 2^62 wraps below zero.
        let far = |t: &mut Self, x: ClValue| {
            let shifted = t.b.ins().iadd_imm_s(x, 1 << 62);
            t.b.ins().icmp_imm_s(IntCC::SignedLessThan, shifted, 0)
        };
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, s, 0);
        let min = self.b.ins().icmp_imm_s(IntCC::Equal, s, i64::MIN);
        let (fa, fb) = (far(self, a), far(self, b));
        let step = self.b.ins().bor(zero, min);
        let ends = self.b.ins().bor(fa, fb);
        let bad = self.b.ins().bor(step, ends);
        Ok(self.guarded(
            bad,
            &[types::I64],
            |t| t.slow_path(slow, types::I64),
            |t| {
                // With a negative step, count `a - b` by `-s`: (b - a) / s + 1 either way, and
                // zero when the range runs the other way.
                let ins = t.b.ins();
                let d = ins.isub(b, a);
                let neg = t.b.ins().icmp_imm_s(IntCC::SignedLessThan, s, 0);
                let nd = t.b.ins().ineg(d);
                let ns = t.b.ins().ineg(s);
                let d = t.b.ins().select(neg, nd, d);
                let s = t.b.ins().select(neg, ns, s);
                let q = t.b.ins().sdiv(d, s);
                let n = t.b.ins().iadd_imm_s(q, 1);
                let empty = t.b.ins().icmp_imm_s(IntCC::SignedLessThan, d, 0);
                let none = t.b.ins().iconst(types::I64, 0);
                Ok(vec![t.b.ins().select(empty, none, n)])
            },
        )?[0])
    }

    fn bool_unary(&mut self, p: Prim, x: ClValue, ty: &Type) -> Option<ClValue> {
        let ins = self.b.ins();
        match (p, ty) {
            (Prim::Not, Type::Bool) => Some(ins.bxor_imm_s(x, 1)),
            (Prim::ToInt, Type::Int64) => Some(ins.uextend(types::I64, x)),
            (Prim::Float, Type::Float64) => {
                let i = ins.uextend(types::I64, x);
                Some(self.b.ins().fcvt_from_sint(types::F64, i))
            }
            _ => None,
        }
    }

    fn bool_binary(&mut self, p: Prim, a: ClValue, b: ClValue) -> Option<ClValue> {
        let cc = match p {
            Prim::Lt => IntCC::UnsignedLessThan,
            Prim::Le => IntCC::UnsignedLessThanOrEqual,
            Prim::Gt => IntCC::UnsignedGreaterThan,
            Prim::Ge => IntCC::UnsignedGreaterThanOrEqual,
            Prim::Eq => IntCC::Equal,
            Prim::Ne => IntCC::NotEqual,
            _ => return None,
        };
        Some(self.b.ins().icmp(cc, a, b))
    }
}

/// The statement the runtime evaluates when an inline check of a scalar operation fails.
pub(super) struct Slow<'a> {
    pub p: Prim,
    pub args: &'a [Operand],
    pub ty: &'a Type,
    pub span: Span,
    /// The statement is a whole broadcast, not the scalar operation itself.
    pub whole: bool,
}
