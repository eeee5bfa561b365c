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
        $slot = Some(::serde::de::MapAccess::next_value::<$ty>(&mut $map)?);
    }};
    (opt, $map:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        if $slot.is_some() || $extra.was_null($key) {
            return Err(<A::Error as ::serde::de::Error>::duplicate_field($key));
        }
        match ::serde::de::MapAccess::next_value::<Option<$ty>>(&mut $map)? {
            Some(v) => $slot = Some(v),
            None => $extra.mark_null($key),
        }
    }};
}

/// Reads one field's value from an already buffered `serde_json::Value`.
macro_rules! wire_de_field_buffered {
    (req, $value:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
        $slot = Some(
            <$ty as ::serde::Deserialize>::deserialize($value).map_err(|e| {
                <A::Error as ::serde::de::Error>::custom(format_args!("{}: {}", $key, e))
            })?,
        );
    }};
    (opt, $value:ident, $slot:ident, $key:literal, $ty:ty, $extra:ident) => {{
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
                $( wire_ser_field!($kind, map, $key, &self.$field, &self.extra); )*
                self.extra.serialize_entries(map)
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
                        _ => extra.insert(key, value),
                    }
                }
                while let Some(key) = ::serde::de::MapAccess::next_key::<$crate::macros::Key<'de>>(&mut map)? {
                    match key.as_str() {
                        $( $key => wire_de_field_live!($kind, map, $field, $key, $ty, extra), )*
                        _ => {
                            let value = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut map)?;
                            extra.insert(key.into_string(), value);
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
                            inner.serialize_fields(&mut map)?;
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
                                let value = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut map)?;
                                prefix.push((key.into_string(), value));
                                continue;
                            }
                            let tag = ::serde::de::MapAccess::next_value::<$crate::macros::Key<'de>>(&mut map)?;
                            return match tag.as_str() {
                                $( $value => <$vty>::from_entries(prefix, map).map($name::$variant), )*
                                _ => {
                                    let mut whole = ::serde_json::Map::new();
                                    for (k, v) in prefix {
                                        whole.insert(k, v);
                                    }
                                    whole.insert($tag.to_owned(), ::serde_json::Value::String(tag.into_string()));
                                    while let Some(k) = ::serde::de::MapAccess::next_key::<String>(&mut map)? {
                                        let v = ::serde::de::MapAccess::next_value::<::serde_json::Value>(&mut map)?;
                                        whole.insert(k, v);
                                    }
                                    Ok($name::Other(whole))
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
