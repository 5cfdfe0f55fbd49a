//! The prelude: Julia source bundled in the binaries, loaded as read-only files of the
//! database. Each file is one module of the library (`Base`, ...); its definitions are named
//! `Module.name` and are visible from every file, in the way a Julia module sees `Base`.

use std::path::{Path, PathBuf};

/// The directory the prelude files appear under in paths and messages.
pub const PRELUDE_DIR: &str = "<zy>/prelude";

/// One bundled file: the module it defines and its text.
pub struct PreludeFile {
    pub module: &'static str,
    pub text: &'static str,
}

/// The prelude, in load order.
pub const PRELUDE: &[PreludeFile] = &[
    PreludeFile {
        module: "Base",
        text: include_str!("../prelude/Base.jl"),
    },
    PreludeFile {
        module: "LinearAlgebra",
        text: include_str!("../prelude/LinearAlgebra.jl"),
    },
    PreludeFile {
        module: "Statistics",
        text: include_str!("../prelude/Statistics.jl"),
    },
    PreludeFile {
        module: "Random",
        text: include_str!("../prelude/Random.jl"),
    },
    PreludeFile {
        module: "SparseArrays",
        text: include_str!("../prelude/SparseArrays.jl"),
    },
    PreludeFile {
        module: "Printf",
        text: include_str!("../prelude/Printf.jl"),
    },
    PreludeFile {
        module: "Unicode",
        text: include_str!("../prelude/Unicode.jl"),
    },
    PreludeFile {
        module: "Dates",
        text: include_str!("../prelude/Dates.jl"),
    },
    PreludeFile {
        module: "Test",
        text: include_str!("../prelude/Test.jl"),
    },
    PreludeFile {
        module: "ForwardDiff",
        text: include_str!("../prelude/ForwardDiff.jl"),
    },
    PreludeFile {
        module: "Zygote",
        text: include_str!("../prelude/Zygote.jl"),
    },
    PreludeFile {
        module: "ReverseDiff",
        text: include_str!("../prelude/ReverseDiff.jl"),
    },
    PreludeFile {
        module: "SpecialFunctions",
        text: include_str!("../prelude/SpecialFunctions.jl"),
    },
    PreludeFile {
        module: "LogExpFunctions",
        text: include_str!("../prelude/LogExpFunctions.jl"),
    },
    PreludeFile {
        module: "StatsFuns",
        text: include_str!("../prelude/StatsFuns.jl"),
    },
    PreludeFile {
        module: "Distributions",
        text: include_str!("../prelude/Distributions.jl"),
    },
];

/// The path under which `file` appears.
pub fn prelude_path(file: &PreludeFile) -> PathBuf {
    Path::new(PRELUDE_DIR).join(format!("{}.jl", file.module))
}

/// The module of the prelude file at `path`, if it is one.
pub fn prelude_module(path: &Path) -> Option<&'static str> {
    PRELUDE
        .iter()
        .find(|f| prelude_path(f) == path)
        .map(|f| f.module)
}

/// Is `module` one of the prelude's modules?
pub fn is_prelude_module(module: &str) -> bool {
    PRELUDE.iter().any(|f| f.module == module)
}
