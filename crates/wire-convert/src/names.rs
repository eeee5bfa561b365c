//! Tool names: kept when the target accepts them, otherwise rewritten deterministically
//! and without collisions, with one table for a request's tool definitions, calls,
//! results and tool choice. Converting the target's response (or stream) with that table
//! in [`Options::names`](crate::Options::names) restores the original names.
//!
//! Rules per target (the same table [`NameRule::of`] returns, and tool-registry checks):
//!
//! * OpenAI Chat and Responses: `^[a-zA-Z0-9_-]{1,64}$` (the function name rule of the
//!   OpenAI API reference).
//! * Anthropic: `^[a-zA-Z0-9_-]{1,128}$` (Messages API reference, tool `name`; older tool
//!   use guides say 64).
//! * Bedrock Converse: 1–64 of `[a-zA-Z0-9_-]`, the first a letter (`ToolSpecification`
//!   `name`; the stricter of the documented patterns).
//! * Gemini: 1–64 of `[a-zA-Z0-9_.:-]`, the first a letter or `_` (`FunctionDeclaration`
//!   `name` in the Gemini API schema, vendored in `fixtures/conformance/gemini.tools.schema.json`:
//!   "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
//!   underscores, dots, colons and dashes, with a maximum length of 64").
//! * Mistral and Cohere: `^[a-zA-Z0-9_-]{1,64}$` (Mistral's API rejects other function
//!   names with that rule; Cohere documents none and its SDK schema has no pattern, so the
//!   OpenAI rule it follows is assumed).
//! * Ollama: any non-empty name (no documented rule).
//! * MCP: 1–128 of `[A-Za-z0-9._-]` (the specification's tool naming guidance).
//!
//! A rejected name is rewritten: each character the rule does not allow becomes `_`; a
//! first character the rule does not allow gets a `t_` in front; a name over the limit
//! keeps its first `max - 9` characters plus `_` and 8 hex digits of its hash; the empty
//! name becomes `tool`. When the result collides with another tool's name (original or
//! rewritten), a salted hash suffix is used until it does not. Names the rule accepts are
//! reserved first, so they never change and nothing collides with them.

use crate::util::AsciiSet;
use wire_types::Format;

/// What a name's first character may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    /// Any allowed character.
    Any,
    /// An ASCII letter.
    Letter,
    /// An ASCII letter or `_`.
    LetterOrUnderscore,
}

/// How tool names must look for a format.
///
/// ```
/// use wire_convert::{Format, NameRule};
/// assert!(NameRule::of(Format::Gemini).accepts("fs.read"));
/// assert!(!NameRule::of(Format::OpenaiChat).accepts("fs.read"));
/// assert!(!NameRule::of(Format::Bedrock).accepts("2fa"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameRule {
    /// `None`: any non-empty string. Otherwise `[a-zA-Z0-9_-]` plus these characters.
    extra: Option<&'static str>,
    first: First,
    max: Option<usize>,
}

impl NameRule {
    const ANY: NameRule = NameRule {
        extra: None,
        first: First::Any,
        max: None,
    };

    const fn safe(max: usize) -> NameRule {
        NameRule {
            extra: Some(""),
            first: First::Any,
            max: Some(max),
        }
    }

    /// The rule of `format`.
    pub fn of(format: Format) -> NameRule {
        match format {
            Format::Anthropic => NameRule::safe(128),
            Format::Bedrock => NameRule {
                first: First::Letter,
                ..NameRule::safe(64)
            },
            Format::Gemini => NameRule {
                extra: Some(".:"),
                first: First::LetterOrUnderscore,
                max: Some(64),
            },
            Format::Ollama => NameRule::ANY,
            Format::Mcp => NameRule {
                extra: Some("."),
                first: First::Any,
                max: Some(128),
            },
            _ => NameRule::safe(64),
        }
    }

    /// The rule every format's rule accepts: 1–64 of `[a-zA-Z0-9_-]`, the first a letter.
    /// A name it accepts is never rewritten for any target.
    pub fn portable() -> NameRule {
        NameRule {
            first: First::Letter,
            ..NameRule::safe(64)
        }
    }

    /// The length limit, in characters (`None`: no limit).
    pub fn max_len(self) -> Option<usize> {
        self.max
    }

    fn allowed(self, c: char) -> bool {
        match self.extra {
            None => true,
            Some(extra) => c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(c),
        }
    }

    /// The ASCII bytes [`NameRule::allowed`] takes (`None`: any): the check of every
    /// byte of every tool name a long transcript carries is one test against it.
    fn ascii(self) -> Option<AsciiSet> {
        // `[a-zA-Z0-9_-]`, made when compiling: building it here would cost a loop over
        // every ASCII byte per name.
        const WORD: AsciiSet = AsciiSet::alnum_and("_-");
        let extra = self.extra?;
        let mut set = WORD;
        for b in extra.bytes() {
            set = set.with(b);
        }
        Some(set)
    }

    fn allowed_first(self, c: char) -> bool {
        self.allowed(c)
            && match self.first {
                First::Any => true,
                First::Letter => c.is_ascii_alphabetic(),
                First::LetterOrUnderscore => c.is_ascii_alphabetic() || c == '_',
            }
    }

    /// Whether `name` obeys the rule.
    pub fn accepts(self, name: &str) -> bool {
        if name.is_ascii() {
            // The common case, by bytes: one char per byte, the length in chars is `len`.
            let b = name.as_bytes();
            let ascii = self.ascii();
            return b
                .first()
                .is_some_and(|&f| self.allowed_first(char::from(f)))
                && ascii.is_none_or(|set| b[1..].iter().all(|&c| set.has(c)))
                && self.max.is_none_or(|m| b.len() <= m);
        }
        let mut chars = name.chars();
        let Some(first) = chars.next() else {
            return false;
        };
        self.allowed_first(first)
            && chars.all(|c| self.allowed(c))
            && self.max.is_none_or(|m| name.chars().count() <= m)
    }

    /// What the rule says, for loss and error messages.
    pub fn describe(self) -> String {
        let Some(extra) = self.extra else {
            return "a non-empty string".into();
        };
        let mut s = format!(
            "1-{} of [a-zA-Z0-9_{extra}-]",
            self.max.map_or("any".into(), |m| m.to_string())
        );
        match self.first {
            First::Any => {}
            First::Letter => s.push_str(", the first a letter"),
            First::LetterOrUnderscore => s.push_str(", the first a letter or `_`"),
        }
        s
    }

    /// The candidate name for `name` with `salt` (0 first, then 1, 2, … on collisions).
    fn derive(self, name: &str, salt: u32) -> String {
        let mut s: String = name
            .chars()
            .map(|c| if self.allowed(c) { c } else { '_' })
            .collect();
        if s.is_empty() {
            s.push_str("tool");
        }
        if !s.chars().next().is_some_and(|c| self.allowed_first(c)) {
            s.insert_str(0, "t_");
        }
        let limit = self.max.unwrap_or(usize::MAX);
        let len = s.chars().count();
        if len > limit || salt > 0 {
            let keep: String = s.chars().take(limit.saturating_sub(9).min(len)).collect();
            s = format!("{keep}_{:08x}", fnv1a(name, salt) as u32);
        }
        s
    }
}

fn fnv1a(s: &str, salt: u32) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes().chain(salt.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A table of tool-name rewrites: source name → target name. A conversion returns it in
/// [`Converted::names`](crate::Converted::names); pass it back in
/// [`Options::names`](crate::Options::names) when converting the target's response or
/// stream, and its calls carry the source's names again.
///
/// ```
/// use wire_convert::{NameMap, NameRule, Format};
/// let map = NameMap::build(NameRule::of(Format::OpenaiChat), ["fs.read", "fs_read"]);
/// assert_eq!(map.get("fs_read"), "fs_read");
/// let new = map.get("fs.read");
/// assert_ne!(new, "fs_read");
/// assert_eq!(map.reverse(new), "fs.read");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameMap {
    table: crate::ids::Table,
}

impl NameMap {
    /// The target name for a source name (itself when it was not rewritten).
    pub fn get<'a>(&'a self, source: &'a str) -> &'a str {
        self.table.get(source)
    }

    /// The source name for a target name (itself when it was not rewritten).
    pub fn reverse<'a>(&'a self, target: &'a str) -> &'a str {
        self.table.reverse(target)
    }

    /// The rewrites, source → target, sorted by source name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter()
    }

    /// Whether nothing was rewritten.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Builds the table for `names` (in first-seen order) under `rule`: names the rule
    /// accepts are kept, the others rewritten, never onto a name already in use.
    pub fn build<'a>(rule: NameRule, names: impl IntoIterator<Item = &'a str>) -> NameMap {
        NameMap {
            table: crate::ids::Table::from_forward(crate::ids::rewrites(
                names,
                |n| rule.accepts(n),
                |n, salt| rule.derive(n, salt),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn each_rule_accepts_exactly_its_names() {
        let chat = NameRule::of(Format::OpenaiChat);
        assert!(chat.accepts(&"a".repeat(64)) && !chat.accepts(&"a".repeat(65)));
        assert!(chat.accepts("get_weather-2") && chat.accepts("2fa") && chat.accepts("_x"));
        for bad in ["", "fs.read", "a b", "café", "a:b", "a/b"] {
            assert!(!chat.accepts(bad), "{bad:?}");
        }
        assert_eq!(NameRule::of(Format::OpenaiResponses), chat);
        assert_eq!(NameRule::of(Format::Mistral), chat);
        assert_eq!(NameRule::of(Format::Cohere), chat);

        let anthropic = NameRule::of(Format::Anthropic);
        assert!(anthropic.accepts(&"a".repeat(128)) && !anthropic.accepts(&"a".repeat(129)));
        assert!(!anthropic.accepts("fs.read"));

        let bedrock = NameRule::of(Format::Bedrock);
        assert!(bedrock.accepts("get_weather") && !bedrock.accepts("2fa"));
        assert!(!bedrock.accepts("_x") && !bedrock.accepts(&"a".repeat(65)));

        let gemini = NameRule::of(Format::Gemini);
        assert!(gemini.accepts("fs.read") && gemini.accepts("ns:tool") && gemini.accepts("_x"));
        assert!(!gemini.accepts("2fa") && !gemini.accepts("a/b") && !gemini.accepts("-x"));
        assert!(!gemini.accepts(&"a".repeat(65)));

        let ollama = NameRule::of(Format::Ollama);
        assert!(ollama.accepts("a b/c.d") && !ollama.accepts(""));

        // The portable rule is accepted by every format's rule.
        for name in ["a", "get_weather-2", &"a".repeat(64)] {
            assert!(NameRule::portable().accepts(name));
            for f in Format::ALL {
                assert!(NameRule::of(f).accepts(name), "{f} {name}");
            }
        }
    }

    #[test]
    fn rejected_names_are_rewritten_per_rule_without_collisions() {
        let long = "x".repeat(80);
        let names = ["fs.read", "fs_read", "2fa", "a b", long.as_str(), ""];
        let bedrock = NameRule::of(Format::Bedrock);
        let map = NameMap::build(bedrock, names);
        assert_eq!(map.get("fs_read"), "fs_read");
        assert_eq!(map.get("2fa"), "t_2fa");
        assert_eq!(map.get("a b"), "a_b");
        assert_eq!(map.get(""), "tool");
        assert_eq!(map.get(&long).chars().count(), 64);
        // `fs.read` would become `fs_read`, which is taken: a hash suffix instead.
        assert!(map.get("fs.read").starts_with("fs_read_") && map.get("fs.read").len() == 16);
        let targets: HashSet<&str> = names.iter().map(|n| map.get(n)).collect();
        assert_eq!(targets.len(), names.len());
        for n in names {
            assert!(bedrock.accepts(map.get(n)), "{n:?}");
            assert_eq!(map.reverse(map.get(n)), n);
        }
        // Gemini keeps the dot.
        let gemini = NameMap::build(NameRule::of(Format::Gemini), names);
        assert_eq!(gemini.get("fs.read"), "fs.read");
    }

    #[test]
    fn rewriting_is_deterministic_collision_free_and_accepted() {
        // A small exhaustive-ish property: every name over an alphabet with bad characters,
        // every rule.
        let alphabet = ['a', '_', '.', ' ', '1', 'é', ':', '-'];
        let mut names = Vec::new();
        for a in alphabet {
            names.push(a.to_string());
            for b in alphabet {
                names.push(format!("{a}{b}"));
                for c in alphabet {
                    names.push(format!("{a}{b}{c}"));
                }
            }
        }
        names.push("y".repeat(200));
        names.push(format!("{}.", "y".repeat(199)));
        for f in Format::ALL {
            let rule = NameRule::of(f);
            let map = NameMap::build(rule, names.iter().map(String::as_str));
            assert_eq!(map, NameMap::build(rule, names.iter().map(String::as_str)));
            let mut seen = HashSet::new();
            for n in &names {
                let t = map.get(n);
                assert!(rule.accepts(t), "{f}: {n:?} -> {t:?}");
                assert!(seen.insert(t.to_owned()), "{f}: collision on {t:?}");
                if rule.accepts(n) {
                    assert_eq!(t, n);
                }
                assert_eq!(map.reverse(t), n);
            }
        }
    }
}
