//! [`Extra`]: what an object carried beyond the fields its type models.

use serde::ser::SerializeMap;
use serde_json::{Map, Value};

/// The part of a JSON object that its Rust type does not model, kept so that reading and
/// writing back gives the same JSON.
///
/// It holds two things:
///
/// * **unknown fields**, in the order they arrived (a provider added a field, or a
///   compatible vendor sends its own); they are written after the known fields;
/// * **explicit nulls**: the names of known optional fields that arrived as `null`. Such a
///   field reads as `None`, like an absent one, but is written back as `null` while it
///   stays `None` (OpenAI sends `"content": null`; other providers reject a `null` they
///   did not send).
///
/// Every object type in this crate has a public `extra` field of this type.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    // Boxed and created on first use: most objects have no unknown field, and an empty
    // `Map` still costs a hasher seed per object on the hot path.
    fields: Option<Box<Map<String, Value>>>,
    nulls: Vec<&'static str>,
}

fn empty() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

impl Extra {
    /// An empty `Extra`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether there are neither unknown fields nor explicit nulls.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fields().is_empty() && self.nulls.is_empty()
    }

    /// The unknown fields, in arrival order.
    #[inline]
    pub fn fields(&self) -> &Map<String, Value> {
        self.fields.as_deref().unwrap_or_else(|| empty())
    }

    /// The unknown fields, to change them.
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        self.fields.get_or_insert_with(Default::default)
    }

    /// Takes the unknown fields out, leaving none.
    pub fn take_fields(&mut self) -> Map<String, Value> {
        self.fields.take().map(|b| *b).unwrap_or_default()
    }

    /// One unknown field.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.as_ref()?.get(key)
    }

    /// Adds or replaces an unknown field. Do not use the name of a field the type models:
    /// it would be written twice.
    pub fn insert(&mut self, key: String, value: Value) {
        self.fields_mut().insert(key, value);
    }

    /// Removes an unknown field.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.fields.as_mut()?.shift_remove(key)
    }

    /// Whether the known field `key` arrived as an explicit `null`.
    #[inline]
    pub fn was_null(&self, key: &str) -> bool {
        !self.nulls.is_empty() && self.nulls.contains(&key)
    }

    /// The known fields that arrived as explicit `null`, in arrival order.
    #[inline]
    pub fn nulls(&self) -> &[&'static str] {
        &self.nulls
    }

    /// Records that the known field `key` is to be written as `null` while it is `None`.
    pub fn mark_null(&mut self, key: &'static str) {
        if !self.nulls.contains(&key) {
            self.nulls.push(key);
        }
    }

    /// Forgets that `key` arrived as `null`: a `None` field is then left out when written.
    pub fn clear_null(&mut self, key: &str) {
        self.nulls.retain(|k| *k != key);
    }

    /// Writes the unknown fields, except any named like a field of the struct (`known`,
    /// its `FIELDS`) or like its union's tag (`tag`, empty for none): a value put there by
    /// hand would be the key twice, or a value the field's type refuses, and the body
    /// could not be read back. (Reading never puts one there; wire-convert reports such a
    /// field as a loss before it gets here.)
    pub(crate) fn serialize_entries<M: SerializeMap>(
        &self,
        map: &mut M,
        known: &[&str],
        tag: &str,
    ) -> Result<(), M::Error> {
        if let Some(fields) = &self.fields {
            for (k, v) in fields.iter() {
                if k == tag || known.contains(&k.as_str()) {
                    continue;
                }
                map.serialize_entry(k, v)?;
            }
        }
        Ok(())
    }
}

/// Equal when the unknown fields are equal and the same known fields were null, in any
/// order (written JSON does not depend on either order).
impl PartialEq for Extra {
    fn eq(&self, other: &Self) -> bool {
        self.fields() == other.fields()
            && self.nulls.len() == other.nulls.len()
            && self.nulls.iter().all(|k| other.nulls.contains(k))
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(fields: Map<String, Value>) -> Self {
        Extra {
            fields: (!fields.is_empty()).then(|| Box::new(fields)),
            nulls: Vec::new(),
        }
    }
}
