fn main() {
    let src = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let f = zy_syntax::parse_file(&src);
    println!("{}", zy_syntax::debug_tree(&f));
    let l = zy_lower::lower_file(0, &f, &zy_lower::global_names(&f));
    for g in l.program.functions.values() {
        for m in &g.methods {
            println!("{}", zy_ir::print_function(&m.body));
        }
    }
    for g in l.program.globals.values() {
        println!("{}", zy_ir::print_function(&g.body));
    }
    for e in &l.errors {
        println!("{:?}", e);
    }
}
