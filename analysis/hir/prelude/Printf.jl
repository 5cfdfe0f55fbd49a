# zy's prelude: Julia's Printf. It defines no functions here: `@sprintf(fmt, xs...)` is split by
# zy's syntax (`analysis/syntax/src/sprintf.rs`) into its text and one formatted number per
# conversion, and `@printf` prints, which zy leaves out with a note. The module exists so that
# `using Printf` is known, as Julia's standard library is.
