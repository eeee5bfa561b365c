//! Small lookup structures for the hot paths: a short list that becomes a hash map,
//! and a set of ASCII bytes.

use std::collections::HashMap;

/// A map from text keys for the few entries most turns have (the calls of one assistant
/// message): a list searched in order while it is short, a hash map once it grows, so a
/// turn with thousands of calls stays linear.
#[derive(Debug)]
pub(crate) struct SmallMap<'k, V> {
    list: Vec<(&'k str, V)>,
    map: HashMap<&'k str, V>,
}

impl<'k, V: Copy> SmallMap<'k, V> {
    /// The most entries kept as a list.
    const LIST: usize = 8;

    /// An empty map.
    pub(crate) fn new() -> Self {
        SmallMap {
            list: Vec::new(),
            map: HashMap::new(),
        }
    }

    /// Sets `key` to `value`; `first`: only if `key` has no value yet.
    pub(crate) fn insert(&mut self, key: &'k str, value: V, first: bool) {
        if self.map.is_empty() {
            if let Some(e) = self.list.iter_mut().find(|(k, _)| *k == key) {
                if !first {
                    e.1 = value;
                }
                return;
            }
            if self.list.len() < Self::LIST {
                self.list.push((key, value));
                return;
            }
            self.map.extend(self.list.drain(..));
        }
        if first {
            self.map.entry(key).or_insert(value);
        } else {
            self.map.insert(key, value);
        }
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<V> {
        if self.map.is_empty() {
            self.list.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
        } else {
            self.map.get(key).copied()
        }
    }

    /// Empties the map, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.map.clear();
    }
}

/// A set of ASCII bytes as a 128-bit mask: the check of every byte of every id and tool
/// name of a long transcript is one shift and one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AsciiSet(u128);

impl AsciiSet {
    /// `[a-zA-Z0-9]` and the bytes of `extra` (ASCII ones; others are ignored).
    pub(crate) const fn alnum_and(extra: &str) -> AsciiSet {
        let mut set = AsciiSet(0);
        let mut c = 0u8;
        while c < 128 {
            if c.is_ascii_alphanumeric() {
                set = set.with(c);
            }
            c += 1;
        }
        let extra = extra.as_bytes();
        let mut i = 0;
        while i < extra.len() {
            set = set.with(extra[i]);
            i += 1;
        }
        set
    }

    /// The set with `b` added too (a byte that is not ASCII is ignored).
    pub(crate) const fn with(self, b: u8) -> AsciiSet {
        if b < 128 {
            AsciiSet(self.0 | 1 << b)
        } else {
            self
        }
    }

    /// Whether `b` is in the set (never for a byte that is not ASCII).
    #[inline]
    pub(crate) fn has(self, b: u8) -> bool {
        b < 128 && (self.0 >> b) & 1 == 1
    }
}
