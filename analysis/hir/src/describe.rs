//! Human-readable names for executed queries, for the query log.

use salsa::plumbing::FromId;
use salsa::{Database, DatabaseKeyIndex};

use crate::ad::AdjointKey;
use crate::db::RootDatabase;
use crate::input::SourceFile;
use crate::item::ItemId;
use crate::jit::CompileKey;
use crate::specialise::InstanceId;

/// `query(key)`, with the key named in source terms: an item by name, an instance by its
/// signature, a file by its file name.
pub fn describe_query(db: &RootDatabase, key: DatabaseKeyIndex) -> String {
    let query = db
        .ingredient_debug_name(key.ingredient_index())
        .into_owned();
    let id = key.key_index();
    let what = match query.as_str() {
        "item_ast" | "item_encoded" | "item_boundaries" | "ssa" | "at_diagnostics" => {
            ItemId::from_id(id).name(db).to_string()
        }
        "typed" | "ret_type" | "expanded" | "gradient" => {
            InstanceId::from_id(id).instance(db).to_string()
        }
        "adjoint" | "reaching" => {
            let key = AdjointKey::from_id(id);
            let inst = zy_ad::names::masked(key.instance(db), key.mask(db));
            let program = key.program(db).instance(db);
            if inst == *program {
                inst.to_string()
            } else {
                format!("{inst} in {program}")
            }
        }
        "rrule" | "frule" => crate::rule::RuleUse::from_id(id).instance(db).to_string(),
        "compiled" => {
            let key = CompileKey::from_id(id);
            format!("{}, {}", key.instance(db).instance(db), key.target(db))
        }
        "parse" | "item_tree" | "file_line_index" | "load_errors" | "diagnostics" => {
            let path = SourceFile::from_id(id).path(db);
            path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            )
        }
        _ => String::new(),
    };
    format!("{query}({what})")
}
