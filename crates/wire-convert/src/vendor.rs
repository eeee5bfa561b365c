//! What a format has and the neutral model does not: [`Vendor`] records and their
//! [`VendorMap`]s, and the helpers decoders and encoders use to fill and read them.
//!
//! A record holds two maps. *Fields* are a source object's members with no neutral
//! equivalent, kept by their source name: the same format's encoder writes them back, any
//! other format's encoder reports each as a loss. *Hints* record how the source spelled
//! what the neutral model normalizes (a string or a list of parts, absent or empty): only
//! the same format reads them, and they are never reported. Each format names its hints
//! as constants in its `hints.rs`.

use crate::model::PartMeta;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use wire_types::{Extra, Format};

/// Fields of a source object that have no neutral equivalent, kept for the format they
/// came from.
///
/// An encoder for the same format writes `fields` back into the object it builds; an
/// encoder for another format reports each of them as a loss. `hints` record how the
/// source spelled something the neutral model normalizes (a string vs an array of parts,
/// a field that was absent vs empty), so the same format can write it back exactly; they
/// are never reported.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Vendor {
    /// The format the fields and hints belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Source fields with no neutral equivalent, by their source name.
    #[serde(default, skip_serializing_if = "VendorMap::is_empty")]
    pub fields: VendorMap,
    /// How the source spelled what the neutral model normalizes.
    #[serde(default, skip_serializing_if = "VendorMap::is_empty")]
    pub hints: VendorMap,
}

/// The map of a [`Vendor`] record: a JSON object, its entries in insertion order.
///
/// A record holds one to three entries, so they are kept in one list (one allocation,
/// none while empty; a hash map would cost three and a hasher seed). Past
/// [`VendorMap::LIST_MAX`] entries (a body with many unknown fields) they move into a
/// serde_json [`Map`], so no operation turns quadratic on a large object.
///
/// It reads like a [`Map`] (`get`, `contains_key`, `iter`, `insert`, `remove`), with the
/// same entry order after any change. Equality is of the maps, in any order (an emptied
/// map equals one never filled).
#[derive(Debug, Clone)]
pub struct VendorMap(Entries);

#[derive(Debug, Clone)]
enum Entries {
    List(Vec<(String, Value)>),
    Map(Box<Map<String, Value>>),
}

impl Default for VendorMap {
    fn default() -> Self {
        VendorMap::new()
    }
}

impl PartialEq for VendorMap {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl VendorMap {
    /// The most entries kept in a list; one more moves them into a [`Map`].
    pub const LIST_MAX: usize = 16;

    /// An empty map (no allocation).
    pub const fn new() -> Self {
        VendorMap(Entries::List(Vec::new()))
    }

    /// Whether there is nothing in it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        match &self.0 {
            Entries::List(l) => l.len(),
            Entries::Map(m) => m.len(),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            Entries::List(l) => l.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Entries::Map(m) => m.get(key),
        }
    }

    /// The value of `key`, to change it.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        match &mut self.0 {
            Entries::List(l) => l.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            Entries::Map(m) => m.get_mut(key),
        }
    }

    /// The value of `key`, inserted by `default` first if it is not there.
    pub fn get_or_insert_with(&mut self, key: &str, default: impl FnOnce() -> Value) -> &mut Value {
        if matches!(&self.0, Entries::List(l) if l.len() >= Self::LIST_MAX)
            && !self.contains_key(key)
        {
            self.promote();
        }
        match &mut self.0 {
            Entries::List(l) => {
                let i = match l.iter().position(|(k, _)| k == key) {
                    Some(i) => i,
                    None => {
                        l.push((key.to_owned(), default()));
                        l.len() - 1
                    }
                };
                &mut l[i].1
            }
            Entries::Map(m) => m.entry(key).or_insert_with(default),
        }
    }

    /// Moves a full list into a [`Map`] (entry order kept).
    fn promote(&mut self) {
        if let Entries::List(l) = &mut self.0 {
            let mut map = Map::with_capacity(l.len() + 1);
            map.extend(std::mem::take(l));
            self.0 = Entries::Map(Box::new(map));
        }
    }

    /// Whether `key` is in it.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entries, in order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(match &self.0 {
            Entries::List(l) => IterRepr::List(l.iter()),
            Entries::Map(m) => IterRepr::Map(m.iter()),
        })
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(k, _)| k)
    }

    /// Inserts `key`; an existing key keeps its place and its old value is returned (as
    /// [`Map::insert`]).
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                if let Some((_, v)) = l.iter_mut().find(|(k, _)| *k == key) {
                    return Some(std::mem::replace(v, value));
                }
                if l.len() < Self::LIST_MAX {
                    // Records rarely grow past one or two entries.
                    l.reserve_exact(1);
                    l.push((key, value));
                    return None;
                }
                self.promote();
                self.insert(key, value)
            }
            Entries::Map(m) => m.insert(key, value),
        }
    }

    /// Removes `key`, keeping the order of the rest.
    pub fn shift_remove(&mut self, key: &str) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                let i = l.iter().position(|(k, _)| k == key)?;
                Some(l.remove(i).1)
            }
            Entries::Map(m) => m.shift_remove(key),
        }
    }

    /// Removes `key`; the last entry takes its place (as [`Map::remove`] does with
    /// serde_json's `preserve_order`).
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        match &mut self.0 {
            Entries::List(l) => {
                let i = l.iter().position(|(k, _)| k == key)?;
                Some(l.swap_remove(i).1)
            }
            Entries::Map(m) => m.remove(key),
        }
    }

    /// Keeps the entries `keep` accepts.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Value) -> bool) {
        match &mut self.0 {
            Entries::List(l) => l.retain_mut(|(k, v)| keep(k, v)),
            Entries::Map(m) => m.retain(keep),
        }
    }

    /// Takes the entries out as a [`Map`], leaving it empty.
    pub fn take(&mut self) -> Map<String, Value> {
        std::mem::take(self).into_map()
    }

    /// The entries as a [`Map`].
    pub fn into_map(self) -> Map<String, Value> {
        match self.0 {
            Entries::List(l) if l.is_empty() => Map::new(),
            Entries::List(l) => {
                let mut map = Map::with_capacity(l.len());
                map.extend(l);
                map
            }
            Entries::Map(m) => *m,
        }
    }

    /// A copy of the entries as a [`Map`].
    pub fn to_map(&self) -> Map<String, Value> {
        self.clone().into_map()
    }
}

/// The entries of a [`VendorMap`], in order.
#[derive(Debug, Clone)]
pub struct Iter<'a>(IterRepr<'a>);

#[derive(Debug, Clone)]
enum IterRepr<'a> {
    List(std::slice::Iter<'a, (String, Value)>),
    Map(serde_json::map::Iter<'a>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IterRepr::List(l) => l.next().map(|(k, v)| (k, v)),
            IterRepr::Map(m) => m.next(),
        }
    }
}

/// The entries of a [`VendorMap`], in order, by value.
#[derive(Debug)]
pub struct IntoIter(IntoIterRepr);

#[derive(Debug)]
enum IntoIterRepr {
    List(std::vec::IntoIter<(String, Value)>),
    Map(serde_json::map::IntoIter),
}

impl Iterator for IntoIter {
    type Item = (String, Value);

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.0 {
            IntoIterRepr::List(l) => l.next(),
            IntoIterRepr::Map(m) => m.next(),
        }
    }
}

/// `map["key"]`: the value, or `null` when the key is not there (as indexing a
/// [`Value`] does).
impl std::ops::Index<&str> for VendorMap {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl Extend<(String, Value)> for VendorMap {
    fn extend<I: IntoIterator<Item = (String, Value)>>(&mut self, entries: I) {
        for (k, v) in entries {
            self.insert(k, v);
        }
    }
}

impl FromIterator<(String, Value)> for VendorMap {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(entries: I) -> Self {
        let mut map = VendorMap::new();
        map.extend(entries);
        map
    }
}

impl From<Map<String, Value>> for VendorMap {
    fn from(map: Map<String, Value>) -> Self {
        if map.len() <= Self::LIST_MAX {
            VendorMap(Entries::List(map.into_iter().collect()))
        } else {
            VendorMap(Entries::Map(Box::new(map)))
        }
    }
}

impl From<VendorMap> for Map<String, Value> {
    fn from(map: VendorMap) -> Self {
        map.into_map()
    }
}

impl IntoIterator for VendorMap {
    type Item = (String, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        IntoIter(match self.0 {
            Entries::List(l) => IntoIterRepr::List(l.into_iter()),
            Entries::Map(m) => IntoIterRepr::Map(m.into_iter()),
        })
    }
}

impl<'a> IntoIterator for &'a VendorMap {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Serialize for VendorMap {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for VendorMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(VendorMap::from)
    }
}

impl Vendor {
    /// Nothing kept.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.hints.is_empty()
    }

    /// A vendor record for `format` with the given fields.
    pub fn new(format: Format, fields: Map<String, Value>) -> Self {
        Vendor {
            format: Some(format),
            fields: fields.into(),
            hints: VendorMap::default(),
        }
    }

    /// The fields, if they belong to `format`.
    pub fn fields_for(&self, format: Format) -> Option<&VendorMap> {
        (self.format == Some(format)).then_some(&self.fields)
    }

    /// A hint, if the record belongs to `format`.
    pub fn hint(&self, format: Format, key: &str) -> Option<&Value> {
        if self.format == Some(format) {
            self.hints.get(key)
        } else {
            None
        }
    }

    /// Whether a boolean hint is set for `format`.
    pub fn flag(&self, format: Format, key: &str) -> bool {
        self.hint(format, key).and_then(Value::as_bool) == Some(true)
    }

    /// Sets a hint (and the format, if none yet).
    pub fn set_hint(&mut self, format: Format, key: &str, value: impl Into<Value>) {
        self.format.get_or_insert(format);
        self.hints.insert(key.to_owned(), value.into());
    }

    /// Adds a field (and sets the format, if none yet).
    pub fn set_field(&mut self, format: Format, key: &str, value: Value) {
        self.format.get_or_insert(format);
        self.fields.insert(key.to_owned(), value);
    }
}

impl Vendor {
    /// A record for `format` holding what a wire struct's [`Extra`] kept: its unknown
    /// fields, plus the names of known fields that arrived as `null` (the `nulls` hint),
    /// minus the nulls listed in `handled` (fields the decoder maps to a neutral value
    /// itself).
    pub(crate) fn from_extra(format: Format, extra: &Extra, handled: &[&str]) -> Vendor {
        let mut vendor = Vendor::default();
        if extra.is_empty() {
            // The common case: nothing to copy (not even an empty map).
            return vendor;
        }
        if !extra.fields().is_empty() {
            vendor.fields = extra.fields().clone().into();
        }
        let nulls = extra.nulls().iter().filter(|n| !handled.contains(n));
        let count = nulls.clone().count();
        if count > 0 {
            let mut list = Vec::with_capacity(count);
            list.extend(nulls.map(|n| Value::from(*n)));
            vendor.hints.insert(NULLS.to_owned(), Value::Array(list));
        }
        if !vendor.is_empty() {
            vendor.format = Some(format);
        }
        vendor
    }

    /// Keeps a wire field that has no neutral equivalent as a field of `format`, when it
    /// is there.
    pub(crate) fn keep<T: Serialize>(&mut self, format: Format, key: &str, value: &Option<T>) {
        if let Some(x) = value {
            self.set_field(format, key, wire_types::to_value(x));
        }
    }

    /// Adds the fields and hints of `from` (its format, if this record has none yet).
    pub(crate) fn merge(&mut self, from: Vendor) {
        if from.is_empty() {
            return;
        }
        self.format = from.format.or(self.format);
        self.fields.extend(from.fields);
        self.hints.extend(from.hints);
    }
}

/// Keeps the named fields of a wire struct that have no neutral equivalent, in order, each
/// as [`Vendor::keep`] does under its Rust name: `keep_fields!(v, F, req; n, user)` is
/// `v.keep(F, "n", &req.n); v.keep(F, "user", &req.user);`. One line a format lists what
/// it keeps (a field whose wire name differs is kept with [`Vendor::keep`]).
macro_rules! keep_fields {
    ($vendor:expr, $format:expr, $wire:expr; $($field:ident),+ $(,)?) => {
        $($vendor.keep($format, stringify!($field), &$wire.$field);)*
    };
}
pub(crate) use keep_fields;

impl PartMeta {
    /// The meta of a part whose wire struct kept `extra` (see [`Vendor::from_extra`]).
    pub(crate) fn from_extra(format: Format, extra: &Extra) -> PartMeta {
        PartMeta {
            vendor: Vendor::from_extra(format, extra, &[]),
            ..Default::default()
        }
    }
}

/// The hint every format shares: the names of known fields that arrived as explicit
/// `null`s (a list of strings), so the same format writes them back as `null`.
pub(crate) const NULLS: &str = "nulls";

/// Taking typed values back out of the fields an encoder took from a [`Vendor`].
pub(crate) trait Fields {
    /// The field `key` read as `T`, removed; a value that does not read as `T` stays
    /// where it is (and goes out with the other fields) rather than being lost.
    fn take_as<T: DeserializeOwned>(&mut self, key: &str) -> Option<T>;

    /// The field `key`, removed, read as `T`; a value that does not read as `T` comes
    /// back with why, for the caller to put back ([`Fields::take_as`]) or report
    /// ([`Ctx::take_fit`](crate::Ctx::take_fit)).
    fn take_typed<T: DeserializeOwned>(
        &mut self,
        key: &str,
    ) -> Option<Result<T, (Value, serde_json::Error)>>;
}

impl Fields for Map<String, Value> {
    fn take_as<T: DeserializeOwned>(&mut self, key: &str) -> Option<T> {
        match self.take_typed(key)? {
            Ok(t) => Some(t),
            Err((value, _)) => {
                self.insert(key.to_owned(), value);
                None
            }
        }
    }

    fn take_typed<T: DeserializeOwned>(
        &mut self,
        key: &str,
    ) -> Option<Result<T, (Value, serde_json::Error)>> {
        if self.is_empty() {
            // Most objects kept no field: no hashing of `key` to find that out.
            return None;
        }
        let value = self.shift_remove(key)?;
        Some(T::deserialize(&value).map_err(|e| (value, e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One change to a map, applied to a `VendorMap` and to a serde_json `Map` alike.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u8),
        GetOrInsert(u8, u8),
        Remove(u8),
        ShiftRemove(u8),
        RetainOdd,
    }

    /// More keys than a list holds, so a map moves into a `Map` and keeps changing there;
    /// few enough that inserts hit existing keys and removes find them.
    const KEYS: u8 = VendorMap::LIST_MAX as u8 + 8;

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            // Inserts outweigh removes so that a map holds about 18 keys: it crosses
            // `LIST_MAX` often and is then changed as a `Map`.
            10 => (0u8..KEYS, any::<u8>()).prop_map(|(k, v)| Op::Insert(k, v)),
            2 => (0u8..KEYS, any::<u8>()).prop_map(|(k, v)| Op::GetOrInsert(k, v)),
            2 => (0u8..KEYS).prop_map(Op::Remove),
            2 => (0u8..KEYS).prop_map(Op::ShiftRemove),
            1 => Just(Op::RetainOdd),
        ]
    }

    proptest! {
        /// A `VendorMap` reads and writes like the `Map` it replaced: the same entries
        /// in the same order after any changes (the bytes an encoder writes from it
        /// depend on that order), the same answers to `get` and `insert`.
        #[test]
        fn vendor_map_behaves_as_a_map(ops in proptest::collection::vec(op(), 0..96)) {
            let mut ours = VendorMap::new();
            let mut map = Map::new();
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        let (k, v) = (format!("k{k}"), Value::from(v));
                        prop_assert_eq!(ours.insert(k.clone(), v.clone()), map.insert(k, v));
                    }
                    Op::GetOrInsert(k, v) => {
                        let k = format!("k{k}");
                        let ours = ours.get_or_insert_with(&k, || Value::from(v)).clone();
                        prop_assert_eq!(&ours, map.entry(k).or_insert_with(|| Value::from(v)));
                    }
                    Op::Remove(k) => {
                        let k = format!("k{k}");
                        prop_assert_eq!(ours.remove(&k), map.remove(&k));
                    }
                    Op::ShiftRemove(k) => {
                        let k = format!("k{k}");
                        prop_assert_eq!(ours.shift_remove(&k), map.shift_remove(&k));
                    }
                    Op::RetainOdd => {
                        let odd = |_: &String, v: &mut Value| v.as_u64().is_some_and(|n| n % 2 == 1);
                        ours.retain(odd);
                        map.retain(odd);
                    }
                }
                prop_assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(&map).unwrap());
                prop_assert_eq!(ours.len(), map.len());
                for k in 0..KEYS {
                    let k = format!("k{k}");
                    prop_assert_eq!(ours.get(&k), map.get(&k));
                    prop_assert_eq!(&ours[k.as_str()], map.get(&k).unwrap_or(&Value::Null));
                }
                prop_assert_eq!(ours.to_map(), map.clone());
            }
        }
    }

    #[test]
    fn a_large_vendor_map_moves_into_a_map() {
        // A body with many unknown fields must not make every insert and lookup a scan.
        let mut grown = VendorMap::new();
        for i in 0..VendorMap::LIST_MAX {
            grown.insert(format!("k{i}"), i.into());
        }
        assert!(matches!(grown.0, Entries::List(_)));
        grown.insert("one more".into(), Value::Null);
        assert!(matches!(grown.0, Entries::Map(_)));
        let big: Map<String, Value> = (0..1000).map(|i| (format!("k{i}"), i.into())).collect();
        let from = VendorMap::from(big.clone());
        assert!(matches!(from.0, Entries::Map(_)));
        assert_eq!(from.into_map(), big);
    }

    #[test]
    fn vendor_map_equality_ignores_order_and_an_empty_map_holds_nothing() {
        let empty = VendorMap::new();
        assert!(
            matches!(&empty.0, Entries::List(l) if l.capacity() == 0),
            "an empty map allocates nothing"
        );
        assert_eq!(
            std::mem::size_of::<VendorMap>(),
            24,
            "three words in every part"
        );
        let mut ab = VendorMap::new();
        ab.insert("a".into(), 1.into());
        ab.insert("b".into(), 2.into());
        let ba: VendorMap = [("b".to_owned(), 2.into()), ("a".to_owned(), 1.into())]
            .into_iter()
            .collect();
        assert_eq!(ab, ba);
        let mut emptied = ab.clone();
        emptied.retain(|_, _| false);
        assert_eq!(emptied, empty);
        ab.insert("b".into(), 3.into());
        assert_ne!(ab, ba, "a changed value");
        // Serde: written and read as the object it stands for.
        let text = serde_json::to_string(&ba).unwrap();
        assert_eq!(text, r#"{"b":2,"a":1}"#);
        let back: VendorMap = serde_json::from_str(&text).unwrap();
        assert_eq!(back.keys().collect::<Vec<_>>(), ["b", "a"]);
    }
}
