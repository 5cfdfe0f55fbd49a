# zy's prelude: Julia's Test. It defines no functions here: a test file's top-level `@test`,
# `@testset`, `@test_throws` and friends are statements zy does not run (each skipped with a
# note, as other script code is), and the functions the file defines are checked as in any
# other file. The module exists so that `using Test`, on the first lines of every package's
# `test/runtests.jl`, is known, as Julia's standard library is.
