//! The three macros every format module is written with.
//!
//! serde's derive would do for most shapes, but not for three things this crate needs:
//!
//! * **explicit nulls**: a known optional field that arrived as `null` must be written back
//!   as `null`, one that was absent must stay absent. `wire_struct!` keeps the field an
//!   ergonomic `Option<T>` and records the null in the struct's [`Extra`](crate::Extra).
//! * **unknown fields without buffering**: `#[serde(flatten)]` routes the struct through
//!   serde's private `Content` buffer; the generated visitor here reads known fields
//!   straight into their types and only unknown ones into `serde_json::Value`.
//! * **tagged unions that keep unknown members and error paths**: serde's internally
//!   tagged enums buffer the whole object before they look at the tag (losing the error
//!   path below it), and `#[serde(other)]` can only be a unit. `wire_tagged!` reads the
//!   tag as soon as it appears (providers put it first), hands the rest of the live map
//!   to the variant, and keeps an unknown tag's object whole in `Other`.
//!
//! `open_enum!` makes a provider-controlled string an open set with an `Other(String)` arm.
//!
//! Two more write the two-shape unions several formats share, once: `string_or_object!`
//! (`tool_choice: "auto"` or `{…}`) and `chunk_or_error!` (a stream line that is a chunk or
//! an error object).
//! # One reading of every body
//!
//! A JSON object with the same key twice is refused, wherever it is in the body: serde
//! would keep the first (a typed field) or the last (`serde_json::Value`), so two readers
//! of the same text could disagree on what it says. The visitors here check it as they
//! go, at no cost to a body without duplicates:
//!
//! * a known field already filled (or already an explicit `null`) is a duplicate
//!   (`wire_de_field_live!`, `wire_de_field_buffered!`);
//! * an unknown field goes into [`Extra`](crate::Extra) through the map's entry API,
//!   which finds an earlier one with the hash it computes anyway ([`insert_new`]);
//! * a union's tag found a second time (in the variant's unknown fields, or in an `Other`
//!   object) is a duplicate;
//! * every `serde_json::Value` below a typed field (`metadata`, a schema, tool-call
//!   `arguments` sent as an object, an unknown field's value) is read by [`UniqueValue`],
//!   the same tree serde_json builds, refusing a repeated key. The macros pick it for
//!   the field types that hold one (`Value`, `Map<String, Value>`, and `Box`, `Vec`,
//!   `Option` and [`MaybeRaw`](crate::MaybeRaw) of those) by autoref specialization
//!   ([`Read`]); every other field type reads itself.
//!
//! The error is `duplicate field`, at the pointer of the key (`/messages/0/role:
//! duplicate field`), the convention `missing field` follows too. A body already held as
//! a `serde_json::Value` cannot show a duplicate: the parser that built it kept one of
//! them (serde_json keeps the last). Read text with [`crate::from_str`] (or
//! [`crate::value_from_str`] for an untyped tree) so that text with a duplicate is refused
//! rather than read one way here and another way there.

/// Field type for a `wire_struct!` field: `req T` is `T`, `opt T` is `Option<T>`.
macro_rules! wire_field_ty {
    (req $ty:ty) => { $ty };
    (opt $ty:ty) => { ::core::option::Option<$ty> };
}

/// Writes one field of a `wire_struct!` into a `SerializeMap`.
macro_rules! wire_ser_field {
    (req, $map:ident, $key:literal, $val:expr, $extra:expr) => {
        ::serde::ser::SerializeMap::serialize_entry($map, $key, $val)?;
    };
    (opt, $map:ident, $key:literal, $val:expr, $extra:expr) => {
        match $val {
            ::core::option::Option::Some(v) => {
                ::serde::ser::SerializeMap::serialize_entry($map, $key, v)?;
            }
            ::core::option::Option::None => {
                if $extra.was_null($key) {
                    ::serde::ser::SerializeMap::serialize_entry($map, $key, &())?;
                }
            }
        }
    };
}

/// Reads one field's value from a live map into its builder slot.
macro_rules! wire_de_field_live {
    (req, $map:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        if $slot.is_some() {
            return Err(<A::Error as ::serde::de::Error>::duplicate_field($key));
        }
        #[allow(unused_imports)]
        use $crate::macros::{ReadPlain as _, ReadUnique as _};
        $slot = Some(::serde::de::MapAccess::next_value_seed(
            &mut $map,
            (&$crate::macros::Read::<$ty>::NEW).seed(),
        )?);
    }};
    (opt, $map:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        if $slot.is_some() || $extra.was_null($key) {
            return Err(<A::Error as ::serde::de::Error>::duplicate_field($key));
        }
        #[allow(unused_imports)]
        use $crate::macros::{ReadPlain as _, ReadUnique as _};
        match ::serde::de::MapAccess::next_value_seed(
            &mut $map,
            (&$crate::macros::Read::<Option<$ty>>::NEW).seed(),
        )? {
            Some(v) => $slot = Some(v),
            None => $extra.mark_null($key),
        }
    }};
}

/// Reads one field's value from an already buffered `serde_json::Value`.
macro_rules! wire_de_field_buffered {
    (req, $value:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        if $slot.is_some() {
            return Err(<A::Error as ::serde::de::Error>::duplicate_field($key));
        }
        $slot = Some(
            <$ty as ::serde::Deserialize>::deserialize($value).map_err(|e| {
                <A::Error as ::serde::de::Error>::custom(format_args!("{}: {}", $key, e))
            })?,
        );
    }};
    (opt, $value:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        if $slot.is_some() || $extra.was_null($key) {
            return Err(<A::Error as ::serde::de::Error>::duplicate_field($key));
        }
        if $value.is_null() {
            $extra.mark_null($key);
        } else {
            $slot = Some(
                <$ty as ::serde::Deserialize>::deserialize($value).map_err(|e| {
                    <A::Error as ::serde::de::Error>::custom(format_args!("{}: {}", $key, e))
                })?,
            );
        }
    }};
}

/// Turns a builder slot into the field value, or a `missing field` error.
macro_rules! wire_finish_field {
    (req, $slot:ident, $key:literal) => {
        match $slot {
            Some(v) => v,
            None => return Err(<A::Error as ::serde::de::Error>::missing_field($key)),
        }
    };
    (opt, $slot:ident, $key:literal) => {
        $slot
    };
}

/// A JSON object with known fields and an [`Extra`](crate::Extra) for everything else.
///
/// ```text
/// wire_struct! {
///     /// A function call.
///     pub struct FunctionCall {
///         /// The function name.
///         req name: String = "name",
///         /// JSON text of the arguments.
///         opt arguments: Arguments = "arguments",
///     }
/// }
/// ```
///
/// `req` fields are `T` and must be present; `opt` fields are `Option<T>`. Every struct gets
/// a last field `extra: Extra` holding unknown fields and the explicit nulls of known ones.
/// Derives `Debug, Clone, PartialEq`; write `#[derive(Default)]` on the struct when every
/// field type has a default (so callers can build it with `..Default::default()`).
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $kind:ident $field:ident : $ty:ty = $key:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: wire_field_ty!($kind $ty),
            )*
            /// Fields this crate does not model, in arrival order, and the known optional
            /// fields that arrived as explicit `null`; both are written back as they came.
            pub extra: $crate::Extra,
        }

        impl $name {
            /// The JSON keys this type models (everything else goes to `extra`).
            pub const FIELDS: &'static [&'static str] = &[$($key),*];

            #[allow(dead_code)]
            pub(crate) fn serialize_fields<M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut M,
            ) -> Result<(), M::Error> {
                self.serialize_tagged_fields(map, "")
            }

            /// [`Self::serialize_fields`] after a union's tag `tag` (a key the unknown
            /// fields must not write again).
            #[allow(dead_code)]
            pub(crate) fn serialize_tagged_fields<M: ::serde::ser::SerializeMap>(
                &self,
                map: &mut M,
                tag: &str,
            ) -> Result<(), M::Error> {
                $( wire_ser_field!($kind, map, $key, &self.$field, &self.extra); )*
                self.extra.serialize_entries(map, Self::FIELDS, tag)
            }

            /// Reads the fields of this object: first `prefix` (entries already read by a
            /// tagged union while it looked for its tag), then the rest of the live map.
            #[allow(unused_mut, unused_variables)]
            pub(crate) fn from_entries<'de, A: ::serde::de::MapAccess<'de>>(
                prefix: Vec<(String, ::serde_json::Value)>,
                mut map: A,
            ) -> Result<Self, A::Error> {
                $( let mut $field: Option<$ty> = None; )*
                let mut extra = $crate::Extra::default();
                for (key, value) in prefix {
                    match key.as_str() {
                        $( $key => wire_de_field_buffered!($kind, value, $field, $key, $ty, extra), )*
                        _ => $crate::macros::insert_new::<A::Error>(extra.fields_mut(), key, value)?,
                    }
                }
                while let Some(key) = ::serde::de::MapAccess::next_key::<$crate::macros::Key<'de>>(&mut map)? {
                    match key.as_str() {
                        $( $key => wire_de_field_live!($kind, map, $field, $key, $ty, extra), )*
                        _ => {
                            let value = $crate::macros::next_value(&mut map)?;
                            $crate::macros::insert_new::<A::Error>(extra.fields_mut(), key.into_string(), value)?;
                        }
                    }
                }
                Ok($name {
                    $( $field: wire_finish_field!($kind, $field, $key), )*
                    extra,
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = ::serde::Serializer::serialize_map(serializer, None)?;
                self.serialize_fields(&mut map)?;
                ::serde::ser::SerializeMap::end(map)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visit;
                impl<'de> ::serde::de::Visitor<'de> for Visit {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("an object (", stringify!($name), ")"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> Result<$name, A::Error> {
                        $name::from_entries(Vec::new(), map)
                    }
                }
                ::serde::Deserializer::deserialize_map(deserializer, Visit)
            }
        }
    };
}

/// A union of objects told apart by a string field (`"type"`, `"role"`), with an `Other`
/// arm that keeps an object with an unknown tag whole.
///
/// ```text
/// wire_tagged! {
///     /// A content part.
///     pub enum Part, tag = "type" {
///         /// `{"type":"text",…}`
///         Text(TextPart) = "text",
///     }
/// }
/// ```
///
/// Each variant's struct is a `wire_struct!` without the tag field; the tag is written
/// first. An object without the tag is an error (`missing field`).
macro_rules! wire_tagged {
    (
        $(#[$meta:meta])*
        pub enum $name:ident, tag = $tag:literal {
            $(
                $(#[$vmeta:meta])*
                $variant:ident($vty:ty) = $value:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        // Variants are read and written whole, once each; boxing them would add an
        // allocation per value on the hot path for no gain.
        #[allow(clippy::large_enum_variant)]
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant($vty),
            )*
            /// An object whose tag this crate does not know, kept whole (tag included).
            Other(::serde_json::Map<String, ::serde_json::Value>),
        }

        impl $name {
            /// The tag field's name.
            pub const TAG: &'static str = $tag;
            /// The tag values this type models.
            pub const KNOWN: &'static [&'static str] = &[$($value),*];

            /// The tag of this value as it is written.
            pub fn tag(&self) -> &str {
                match self {
                    $( $name::$variant(_) => $value, )*
                    $name::Other(map) => map.get($tag).and_then(|t| t.as_str()).unwrap_or(""),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(
                        $name::$variant(inner) => {
                            let mut map = ::serde::Serializer::serialize_map(serializer, None)?;
                            ::serde::ser::SerializeMap::serialize_entry(&mut map, $tag, $value)?;
                            inner.serialize_tagged_fields(&mut map, $tag)?;
                            ::serde::ser::SerializeMap::end(map)
                        }
                    )*
                    $name::Other(map) => ::serde::Serialize::serialize(map, serializer),
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visit;
                impl<'de> ::serde::de::Visitor<'de> for Visit {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(concat!("an object with a `", $tag, "` field (", stringify!($name), ")"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut prefix: Vec<(String, ::serde_json::Value)> = Vec::new();
                        loop {
                            let Some(key) = ::serde::de::MapAccess::next_key::<$crate::macros::Key<'de>>(&mut map)? else {
                                return Err(<A::Error as ::serde::de::Error>::missing_field($tag));
                            };
                            if key.as_str() != $tag {
                                let value = $crate::macros::next_value(&mut map)?;
                                prefix.push((key.into_string(), value));
                                continue;
                            }
                            let tag = ::serde::de::MapAccess::next_value::<$crate::macros::Key<'de>>(&mut map)?;
                            return match tag.as_str() {
                                $( $value => {
                                    let inner = <$vty>::from_entries(prefix, map)?;
                                    // A second tag lands in the variant's unknown fields.
                                    if inner.extra.get($tag).is_some() {
                                        return Err(<A::Error as ::serde::de::Error>::duplicate_field($tag));
                                    }
                                    Ok($name::$variant(inner))
                                } )*
                                _ => {
                                    let tag = ::serde_json::Value::String(tag.into_string());
                                    $crate::macros::whole(prefix, $tag, tag, map).map($name::Other)
                                }
                            };
                        }
                    }
                }
                ::serde::Deserializer::deserialize_map(deserializer, Visit)
            }
        }
    };
}

/// A provider-controlled string (a role, a stop reason, a block type): known values as
/// variants, anything else kept in `Other`. `From<&str>` always maps a known spelling to
/// its variant, so `Other` never holds a known value.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = $value:literal
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant,
            )*
            /// A value this crate does not know yet, kept as sent.
            Other(String),
        }

        impl $name {
            /// The known spellings, in declaration order.
            pub const KNOWN: &'static [&'static str] = &[$($value),*];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $value, )*
                    $name::Other(s) => s.as_str(),
                }
            }

            /// Whether this is one of the known values.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Other(_))
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $value => $name::$variant, )*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                match s.as_str() {
                    $( $value => $name::$variant, )*
                    _ => $name::Other(s),
                }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let key = <$crate::macros::Key<'de> as ::serde::Deserialize>::deserialize(deserializer)?;
                Ok($name::from(key.as_str()))
            }
        }
    };
}

/// Reads the value of a map entry as a `serde_json::Value`, refusing a repeated key in
/// any object within it (see [`UniqueValue`]).
#[doc(hidden)]
pub fn next_value<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
) -> Result<serde_json::Value, A::Error> {
    map.next_value_seed(Seed::<serde_json::Value>::NEW)
}

/// Inserts an entry that must be new: a key already there is a `duplicate field` error
/// (at the key's pointer). One hash and one probe, as a plain `insert`.
#[doc(hidden)]
pub fn insert_new<E: serde::de::Error>(
    map: &mut serde_json::Map<String, serde_json::Value>,
    key: String,
    value: serde_json::Value,
) -> Result<(), E> {
    match map.entry(key) {
        serde_json::map::Entry::Vacant(e) => {
            e.insert(value);
            Ok(())
        }
        serde_json::map::Entry::Occupied(e) => Err(duplicate(e.key())),
    }
}

/// The `duplicate field` error for a key known only at run time (serde's
/// `duplicate_field` wants a `&'static str`); [`crate::Error`] moves the name into the
/// pointer, as for `duplicate_field`.
#[doc(hidden)]
pub fn duplicate<E: serde::de::Error>(key: &str) -> E {
    E::custom(format_args!("duplicate field `{key}`"))
}

/// An object kept whole (an `Other` arm): the entries read before the tag, the tag, and
/// the rest of the live map, each key once.
#[doc(hidden)]
pub fn whole<'de, A: serde::de::MapAccess<'de>>(
    prefix: Vec<(String, serde_json::Value)>,
    tag_key: &str,
    tag: serde_json::Value,
    mut map: A,
) -> Result<serde_json::Map<String, serde_json::Value>, A::Error> {
    let mut whole = serde_json::Map::new();
    for (k, v) in prefix {
        insert_new::<A::Error>(&mut whole, k, v)?;
    }
    insert_new::<A::Error>(&mut whole, tag_key.to_owned(), tag)?;
    while let Some(k) = map.next_key::<String>()? {
        let v = next_value(&mut map)?;
        insert_new::<A::Error>(&mut whole, k, v)?;
    }
    Ok(whole)
}

/// A map with no entries left: for reading a value from entries already buffered.
#[doc(hidden)]
pub struct NoMore<E>(core::marker::PhantomData<E>);

impl<E> NoMore<E> {
    /// The empty map.
    pub const NEW: Self = NoMore(core::marker::PhantomData);
}

impl<'de, E: serde::de::Error> serde::de::MapAccess<'de> for NoMore<E> {
    type Error = E;
    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        _: K,
    ) -> Result<Option<K::Value>, E> {
        Ok(None)
    }
    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, _: V) -> Result<V::Value, E> {
        Err(E::custom("no value: the map is empty"))
    }
}

/// A type read through [`UniqueValue`]: `serde_json::Value`, `Map<String, Value>`, and
/// `Box`, `Vec`, `Option` and [`MaybeRaw`](crate::MaybeRaw) of those. Every other type
/// reads itself (its own visitor checks its keys).
#[doc(hidden)]
pub trait Unique<'de>: Sized {
    /// Reads `Self`, refusing a repeated key in any object.
    fn read<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// A `serde_json::Value`, read as serde_json reads one but refusing an object with the
/// same key twice (serde_json keeps the last). The tree is built with the same calls, so
/// it costs what `Value`'s own reader does.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct UniqueValue;

impl<'de> serde::de::Visitor<'de> for UniqueValue {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<serde_json::Value, E> {
        // As serde_json: a float JSON cannot hold (never parsed from text) is `null`.
        Ok(serde_json::Number::from_f64(v)
            .map_or(serde_json::Value::Null, serde_json::Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::String(v))
    }
    fn visit_none<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<serde_json::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<serde_json::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element_seed(Seed::<serde_json::Value>::NEW)? {
            items.push(v);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        map: A,
    ) -> Result<serde_json::Value, A::Error> {
        UniqueMap.visit_map(map).map(serde_json::Value::Object)
    }
}

/// [`UniqueValue`] for an object.
struct UniqueMap;

impl<'de> serde::de::Visitor<'de> for UniqueMap {
    type Value = serde_json::Map<String, serde_json::Value>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a map")
    }
    // As serde_json's `Map`: `null` reads as an empty map.
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Map::new())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = next_value(&mut map)?;
            insert_new::<A::Error>(&mut out, key, value)?;
        }
        Ok(out)
    }
}

impl<'de> Unique<'de> for serde_json::Value {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UniqueValue)
    }
}

impl<'de> Unique<'de> for serde_json::Map<String, serde_json::Value> {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(UniqueMap)
    }
}

impl<'de, T: Unique<'de>> Unique<'de> for Box<T> {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::read(d).map(Box::new)
    }
}

impl<'de, T: Unique<'de>> Unique<'de> for crate::MaybeRaw<T> {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::read(d).map(crate::MaybeRaw::Parsed)
    }
}

impl<'de, T: Unique<'de>> Unique<'de> for Option<T> {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<T>(core::marker::PhantomData<T>);
        impl<'de, T: Unique<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = Option<T>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an optional value")
            }
            fn visit_none<E>(self) -> Result<Option<T>, E> {
                Ok(None)
            }
            fn visit_unit<E>(self) -> Result<Option<T>, E> {
                Ok(None)
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
                T::read(d).map(Some)
            }
        }
        d.deserialize_option(Visit(core::marker::PhantomData))
    }
}

impl<'de, T: Unique<'de>> Unique<'de> for Vec<T> {
    fn read<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<T>(core::marker::PhantomData<T>);
        impl<'de, T: Unique<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<T>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(v) = seq.next_element_seed(Seed::<T>::NEW)? {
                    items.push(v);
                }
                Ok(items)
            }
        }
        d.deserialize_seq(Visit(core::marker::PhantomData))
    }
}

/// A [`DeserializeSeed`](serde::de::DeserializeSeed) that reads a [`Unique`] type.
#[doc(hidden)]
pub struct Seed<T>(core::marker::PhantomData<T>);

impl<T> Seed<T> {
    /// The seed.
    pub const NEW: Self = Seed(core::marker::PhantomData);
}

impl<'de, T: Unique<'de>> serde::de::DeserializeSeed<'de> for Seed<T> {
    type Value = T;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::read(d)
    }
}

/// Picks how a field of type `T` is read, at the macro's call site where `T` is concrete
/// (autoref specialization): `(&Read::<T>::NEW).seed()` is a [`Seed`] through
/// [`ReadUnique`] when `T` is [`Unique`], else `PhantomData<T>` (serde's own reader)
/// through [`ReadPlain`], one autoref further.
#[doc(hidden)]
pub struct Read<T>(core::marker::PhantomData<T>);

impl<T> Read<T> {
    /// The selector.
    pub const NEW: Self = Read(core::marker::PhantomData);
}

/// See [`Read`]: the reader for [`Unique`] types.
#[doc(hidden)]
pub trait ReadUnique<'de, T> {
    /// The seed that reads a `T`.
    fn seed(&self) -> Seed<T>;
}

impl<'de, T: Unique<'de>> ReadUnique<'de, T> for Read<T> {
    fn seed(&self) -> Seed<T> {
        Seed::NEW
    }
}

/// See [`Read`]: serde's own reader, for every other type.
#[doc(hidden)]
pub trait ReadPlain<'de, T> {
    /// The seed that reads a `T`.
    fn seed(&self) -> core::marker::PhantomData<T>;
}

impl<'de, T: serde::Deserialize<'de>> ReadPlain<'de, T> for &Read<T> {
    fn seed(&self) -> core::marker::PhantomData<T> {
        core::marker::PhantomData
    }
}

/// A string read from the input, borrowed when the input allows it.
#[doc(hidden)]
#[derive(Debug)]
pub enum Key<'de> {
    /// Borrowed from the input.
    Borrowed(&'de str),
    /// Copied (the input had escapes, or is not a string slice).
    Owned(String),
}

impl Key<'_> {
    /// The string.
    pub fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }

    /// The string, owned.
    pub fn into_string(self) -> String {
        match self {
            Key::Borrowed(s) => s.to_owned(),
            Key::Owned(s) => s,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

/// `Serialize` for an enum of one-field variants: each writes its field as it is (the
/// unions of `string_or_object!` and `chunk_or_error!`).
macro_rules! serialize_as_inner {
    ($name:ident { $($variant:ident),* }) => {
        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $name::$variant(inner) => ::serde::Serialize::serialize(inner, serializer), )*
                }
            }
        }
    };
}

/// A value the wire sends as a string or as an object (`tool_choice: "auto"` or
/// `{"type":"function",…}`, `image_url: "https://…"` or `{"url":…}`, …).
///
/// ```text
/// string_or_object! {
///     /// `tool_choice`.
///     pub enum ToolChoice, expecting = "\"auto\" or a tool-choice object" {
///         /// `"auto"`, ….
///         Mode(ToolChoiceMode),
///         /// `{"type":"function",…}`.
///         Named(NamedToolChoice),
///     }
/// }
/// ```
///
/// The string member's type is built with `From<&str>` / `From<String>` (a `String` or an
/// `open_enum!`); the object member's type reads the live map (errors keep their path).
/// Anything else is an error saying `expecting`.
macro_rules! string_or_object {
    (
        $(#[$meta:meta])*
        pub enum $name:ident, expecting = $expecting:literal {
            $(#[$smeta:meta])*
            $svariant:ident($sty:ty),
            $(#[$ometa:meta])*
            $ovariant:ident($oty:ty) $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $(#[$smeta])*
            $svariant($sty),
            $(#[$ometa])*
            $ovariant($oty),
        }

        serialize_as_inner!($name { $svariant, $ovariant });

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct OneOf;
                impl<'de> ::serde::de::Visitor<'de> for OneOf {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        Ok($name::$svariant(<$sty>::from(v)))
                    }
                    fn visit_string<E: ::serde::de::Error>(self, v: String) -> Result<$name, E> {
                        Ok($name::$svariant(<$sty>::from(v)))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> Result<$name, A::Error> {
                        <$oty as ::serde::Deserialize>::deserialize(
                            ::serde::de::value::MapAccessDeserializer::new(map),
                        )
                        .map($name::$ovariant)
                    }
                }
                ::serde::Deserializer::deserialize_any(deserializer, OneOf)
            }
        }
    };
}

/// What one key of an object says about which member of a `chunk_or_error!` union the
/// object is.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum Side {
    /// Only the chunk has this key.
    Chunk,
    /// Only the error has this key.
    Error,
    /// Both may have it, or neither: look at the next key.
    Undecided,
    /// The key's value decides (it is read first, then given to the function).
    ByValue(fn(&serde_json::Value) -> Side),
}

/// A stream event that is a chunk or an error object, told apart by the first key only
/// one of the two has (`{"choices":…}` / `{"error":…}`); `decide` maps a key to a
/// [`Side`]. An object no key decides is read as a chunk.
///
/// ```text
/// chunk_or_error! {
///     /// One event of a streamed response.
///     pub enum StreamEvent, expecting = "a chunk or an error object" {
///         /// A chunk.
///         Chunk(Chunk),
///         /// An error object.
///         Error(ErrorResponse),
///     }
///     decide = |key| match key {
///         "error" => Side::Error,
///         _ => Side::Chunk,
///     }
/// }
/// ```
///
/// Without `decide`, `error` decides for the error and any field of the chunk type for
/// the chunk.
///
/// Keys before the deciding one are buffered; the deciding key's value (unless it was
/// needed to decide) and the rest are read live, so errors keep their path. Both members
/// are `wire_struct!` types.
macro_rules! chunk_or_error {
    (
        $(#[$meta:meta])*
        pub enum $name:ident, expecting = $expecting:literal {
            $(#[$cmeta:meta])*
            Chunk($cty:ty),
            $(#[$emeta:meta])*
            Error($ety:ty) $(,)?
        }
    ) => {
        chunk_or_error! {
            $(#[$meta])*
            pub enum $name, expecting = $expecting {
                $(#[$cmeta])*
                Chunk($cty),
                $(#[$emeta])*
                Error($ety),
            }
            decide = |key| match key {
                "error" => Side::Error,
                key if <$cty>::FIELDS.contains(&key) => Side::Chunk,
                _ => Side::Undecided,
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $name:ident, expecting = $expecting:literal {
            $(#[$cmeta:meta])*
            Chunk($cty:ty),
            $(#[$emeta:meta])*
            Error($ety:ty) $(,)?
        }
        decide = $decide:expr $(,)?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $(#[$cmeta])*
            Chunk($cty),
            $(#[$emeta])*
            Error($ety),
        }

        serialize_as_inner!($name { Chunk, Error });

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct OneOf;
                impl<'de> ::serde::de::Visitor<'de> for OneOf {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        use $crate::macros::{KeyFirst, Side};
                        let decide: fn(&str) -> Side = $decide;
                        let mut prefix: Vec<(String, ::serde_json::Value)> = Vec::new();
                        while let Some(key) = ::serde::de::MapAccess::next_key::<$crate::macros::Key<'de>>(&mut map)? {
                            let side = match decide(key.as_str()) {
                                Side::ByValue(by) => {
                                    let value = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut map)?;
                                    let side = by(&value);
                                    prefix.push((key.into_string(), value));
                                    match side {
                                        Side::Chunk => return <$cty>::from_entries(prefix, map).map($name::Chunk),
                                        Side::Error => return <$ety>::from_entries(prefix, map).map($name::Error),
                                        _ => continue,
                                    }
                                }
                                side => side,
                            };
                            match side {
                                Side::Chunk => {
                                    return <$cty>::from_entries(prefix, KeyFirst::new(key, map)).map($name::Chunk);
                                }
                                Side::Error => {
                                    return <$ety>::from_entries(prefix, KeyFirst::new(key, map)).map($name::Error);
                                }
                                _ => {
                                    let value = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut map)?;
                                    prefix.push((key.into_string(), value));
                                }
                            }
                        }
                        <$cty>::from_entries(prefix, map).map($name::Chunk)
                    }
                }
                ::serde::Deserializer::deserialize_map(deserializer, OneOf)
            }
        }
    };
}

/// A `MapAccess` that yields one key already read from `inner` before the rest of it, so
/// the value of the key that decided a union's member (a chunk's `candidates`, often most
/// of the body) is read live, with its error path, rather than buffered as a `Value`.
#[doc(hidden)]
pub struct KeyFirst<'de, A> {
    first: Option<Key<'de>>,
    inner: A,
}

impl<'de, A> KeyFirst<'de, A> {
    /// `first`, then the rest of `inner`.
    pub fn new(first: Key<'de>, inner: A) -> Self {
        KeyFirst {
            first: Some(first),
            inner,
        }
    }
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for KeyFirst<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(Key::Borrowed(k)) => seed
                .deserialize(serde::de::value::BorrowedStrDeserializer::new(k))
                .map(Some),
            Some(Key::Owned(k)) => seed
                .deserialize(serde::de::value::StringDeserializer::new(k))
                .map(Some),
            None => self.inner.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}
