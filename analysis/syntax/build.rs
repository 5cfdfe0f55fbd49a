//! Compiles `csrc/julia_guarded.c`: tree-sitter-julia with its external scanner guarded during
//! error recovery (see that file).

fn main() {
    println!("cargo:rerun-if-changed=csrc");
    cc::Build::new()
        .std("c11")
        .include("csrc")
        .file("csrc/julia_guarded.c")
        .compile("zy-julia-guarded");
}
