# zy's prelude: Julia's Unicode standard library, the part of it zy has: `graphemes`. The
# clusters are found by the engines (`_str_graphemes`, the rules of Unicode's UAX #29 for
# the common cases: combining marks, emoji joined by ZWJs, skin tones, flags, Hangul).

export graphemes

"""
    graphemes(s)

The grapheme clusters of `s`, the characters a reader sees (a letter with its combining marks,
an emoji sequence joined by zero-width joiners, a flag), each a `SubString` of `s`, in order.
Julia gives an iterator of them; zy gives the `Vector` that `collect` of it makes.
"""
function graphemes(s::AbstractString)
    str = String(s)
    starts = _str_graphemes(str)
    n = length(starts)
    return [SubString(str, starts[k], k < n ? prevind(str, starts[k + 1]) : lastindex(str)) for k in 1:n]
end
