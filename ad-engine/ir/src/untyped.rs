//! Serde of the untyped IR, lowering's output (the prelude's build script packs the library's
//! lowering into bytes with it): a function's inferred parts, a value's type other than
//! [`Type::Any`] and a specialisation's instance, do not serialize, and read back as untyped.

use std::sync::Arc;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Error, Serializer};

use crate::ops::Instance;
use crate::types::Type;

/// A type that must be [`Type::Any`]: nothing in the bytes.
pub(crate) mod any {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Type, s: S) -> Result<S::Ok, S::Error> {
        if *t != Type::Any {
            return Err(S::Error::custom("a typed value is not untyped IR"));
        }
        s.serialize_unit()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Type, D::Error> {
        <()>::deserialize(d).map(|()| Type::Any)
    }
}

/// An instance that must be absent: nothing in the bytes.
pub(crate) mod no_instance {
    use super::*;

    pub fn serialize<S: Serializer>(i: &Option<Arc<Instance>>, s: S) -> Result<S::Ok, S::Error> {
        if i.is_some() {
            return Err(S::Error::custom("a specialisation is not untyped IR"));
        }
        s.serialize_unit()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Arc<Instance>>, D::Error> {
        <()>::deserialize(d).map(|()| None)
    }
}
