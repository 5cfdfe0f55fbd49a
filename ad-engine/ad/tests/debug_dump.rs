mod common;
#[test]
#[ignore]
fn dump() {
    let src = std::fs::read_to_string(std::env::var("ZY_SRC").unwrap()).unwrap();
    let name = std::env::var("ZY_FN").unwrap();
    let args: Vec<zy_interp::Value> = std::env::var("ZY_ARGS").unwrap().split(";").map(|a| if a.starts_with("[") { zy_interp::Value::vector_f64(a.trim_matches(|c| c == '[' || c == ']').split(",").map(|x| x.parse().unwrap()).collect()) } else if a.contains(".") { zy_interp::Value::F64(a.parse().unwrap()) } else { zy_interp::Value::Int(a.parse().unwrap()) }).collect::<Vec<_>>(); let _unused: Vec<i32> = vec![];
    let (inst, prog) = common::run::typed(&src, &name, &args);
    let (_, out) = zy_ad::gradient_program(&prog, &inst).unwrap();
    for (i, f) in &out.functions { println!("{i}\n{f}"); }
    println!("{}", common::run::shown(&src, &name, args));
}
