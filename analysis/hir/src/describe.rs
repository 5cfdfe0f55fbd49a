//! Human-readable names for executed queries, for the query log.

use salsa::{Database, DatabaseKeyIndex};

use crate::db::RootDatabase;
use crate::item::ItemId;

/// `query(key)`, with the key named in source terms where the query's key type is known.
pub fn describe_query(db: &RootDatabase, key: DatabaseKeyIndex) -> String {
    let query = db.ingredient_debug_name(key.ingredient_index()).into_owned();
    let id = key.key_index();
    let what = match query.as_str() {
        "item_ast" | "item_offset" | "ssa" => ItemId::from_salsa_id(id).name(db).to_string(),
        _ => format!("{id:?}"),
    };
    format!("{query}({what})")
}
