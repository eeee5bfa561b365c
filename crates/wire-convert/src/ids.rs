//! Tool-call ids: kept when the target accepts them, otherwise mapped deterministically,
//! injectively and reversibly, with one table for calls and results across a transcript.
//!
//! Rules per target:
//!
//! * Anthropic `^[a-zA-Z0-9_-]+$`; Bedrock the same, at most 64 characters.
//! * Mistral: exactly 9 of `[a-zA-Z0-9]`.
//! * Every other format takes any non-empty string.
//!
//! An id that breaks the rule is rewritten: for Anthropic and Bedrock each bad character
//! becomes `_` (and a long id keeps 55 characters plus `_` and 8 hex digits of its hash);
//! for Mistral the id is the 9-character base-62 form of a 64-bit FNV-1a hash. When a new
//! id would collide with an id already in use, the hash is salted (or a `_2`, `_3` …
//! suffix added) until it does not. Ids that already obey the rule are reserved first, so
//! they never change and nothing collides with them.

use crate::model::{Part, Request, Response};
use crate::{Ctx, LossCode};
use std::collections::{BTreeMap, HashMap, HashSet};
use wire_types::Format;

/// How ids must look for a format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdRule {
    /// Any non-empty string.
    Any,
    /// `[a-zA-Z0-9_-]+`, at most `max` characters (`None`: no limit).
    Safe {
        /// Length limit.
        max: Option<usize>,
    },
    /// Exactly 9 of `[a-zA-Z0-9]` (Mistral).
    Nine,
}

impl IdRule {
    /// The rule of `format`.
    pub fn of(format: Format) -> IdRule {
        match format {
            Format::Anthropic => IdRule::Safe { max: None },
            Format::Bedrock => IdRule::Safe { max: Some(64) },
            Format::Mistral => IdRule::Nine,
            _ => IdRule::Any,
        }
    }

    /// Whether `id` obeys the rule.
    pub fn accepts(self, id: &str) -> bool {
        match self {
            IdRule::Any => !id.is_empty(),
            // Only ASCII is accepted, so bytes are characters once every byte passes.
            IdRule::Safe { max } => {
                !id.is_empty()
                    && max.is_none_or(|m| id.len() <= m)
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }
            IdRule::Nine => id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()),
        }
    }

    /// What the rule says, for loss messages.
    pub fn describe(self) -> &'static str {
        match self {
            IdRule::Any => "a non-empty string",
            IdRule::Safe { max: None } => "[a-zA-Z0-9_-]+",
            IdRule::Safe { max: Some(_) } => "1-64 of [a-zA-Z0-9_-]",
            IdRule::Nine => "exactly 9 of [a-zA-Z0-9]",
        }
    }

    /// The candidate id for `id` with `salt` (0 first, then 1, 2, … on collisions).
    fn derive(self, id: &str, salt: u32) -> String {
        match self {
            IdRule::Any => {
                let base = if id.is_empty() { "call" } else { id };
                if salt == 0 {
                    base.to_owned()
                } else {
                    format!("{base}_{}", salt + 1)
                }
            }
            IdRule::Safe { max } => {
                let mut s: String = id
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                if s.is_empty() {
                    s.push_str("call");
                }
                let limit = max.unwrap_or(usize::MAX);
                if s.chars().count() > limit || (salt > 0 && s.chars().count() + 9 > limit) {
                    let keep: String = s.chars().take(limit.saturating_sub(9)).collect();
                    s = format!("{keep}_{:08x}", fnv1a(id, salt) as u32);
                } else if salt > 0 {
                    s = format!("{s}_{}", salt + 1);
                }
                s
            }
            IdRule::Nine => base62_9(fnv1a(id, salt)),
        }
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

fn base62_9(mut n: u64) -> String {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = [b'0'; 9];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    out.iter().map(|&b| b as char).collect()
}

/// A rewrite table, source → target, with its reverse index (the rewrites are injective),
/// so that both directions are one lookup: what [`IdMap`] and
/// [`NameMap`](crate::NameMap) hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Table {
    forward: BTreeMap<String, String>,
    backward: BTreeMap<String, String>,
}

impl Table {
    pub(crate) fn from_forward(forward: BTreeMap<String, String>) -> Table {
        let backward = forward
            .iter()
            .map(|(s, t)| (t.clone(), s.clone()))
            .collect();
        Table { forward, backward }
    }

    pub(crate) fn get<'a>(&'a self, source: &'a str) -> &'a str {
        self.forward.get(source).map_or(source, String::as_str)
    }

    pub(crate) fn rewritten(&self, source: &str) -> Option<&String> {
        self.forward.get(source)
    }

    pub(crate) fn reverse<'a>(&'a self, target: &'a str) -> &'a str {
        self.backward.get(target).map_or(target, String::as_str)
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.forward.iter().map(|(s, t)| (s.as_str(), t.as_str()))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.forward.is_empty()
    }

    fn insert(&mut self, source: String, target: String) {
        self.backward.insert(target.clone(), source.clone());
        self.forward.insert(source, target);
    }
}

/// A table of id rewrites: source id → target id. Reverse it to map the target's ids
/// (in its results) back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdMap {
    table: Table,
}

impl IdMap {
    /// The target id for a source id (itself when it was not rewritten).
    pub fn get<'a>(&'a self, source: &'a str) -> &'a str {
        self.table.get(source)
    }

    /// The source id for a target id (itself when it was not rewritten).
    pub fn reverse<'a>(&'a self, target: &'a str) -> &'a str {
        self.table.reverse(target)
    }

    /// The rewrites, source → target, sorted by source id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.table.iter()
    }

    /// Whether nothing was rewritten.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// Builds the table for `ids` (in first-seen order) under `rule`.
    pub fn build<'a>(rule: IdRule, ids: impl IntoIterator<Item = &'a str>) -> IdMap {
        IdMap {
            table: Table::from_forward(rewrites(
                ids,
                |i| rule.accepts(i),
                |i, salt| rule.derive(i, salt),
            )),
        }
    }
}

/// The one rewrite of tool-call ids and tool names ([`IdMap::build`],
/// [`NameMap::build`](crate::NameMap::build)): each of `items` (first-seen order) that
/// `accepts` refuses is written as the first `derive(item, salt)`, salt 0, 1, …, that it
/// accepts and that no other item has (the accepted ones are reserved first), so the
/// table is deterministic and injective.
pub(crate) fn rewrites<'a>(
    items: impl IntoIterator<Item = &'a str>,
    accepts: impl Fn(&str) -> bool,
    derive: impl Fn(&str, u32) -> String,
) -> BTreeMap<String, String> {
    let items: Vec<&str> = {
        let mut seen = HashSet::new();
        items.into_iter().filter(|i| seen.insert(*i)).collect()
    };
    let mut used: HashSet<String> = items
        .iter()
        .filter(|i| accepts(i))
        .map(|i| (*i).to_owned())
        .collect();
    let mut forward = BTreeMap::new();
    for item in items {
        if accepts(item) {
            continue;
        }
        let mut salt = 0;
        let new = loop {
            let candidate = derive(item, salt);
            if !used.contains(&candidate) && accepts(&candidate) {
                break candidate;
            }
            salt += 1;
        };
        used.insert(new.clone());
        forward.insert(item.to_owned(), new);
    }
    forward
}

/// Ids mapped one at a time, as a stream brings them: each new id that breaks the rule
/// gets the same candidate the whole-body mapping would try first, checked against every
/// id written so far, so the map stays deterministic and without collisions.
#[derive(Debug, Clone)]
pub(crate) struct IdMapper {
    rule: IdRule,
    used: HashSet<String>,
    map: IdMap,
}

impl IdMapper {
    /// A mapper for `rule`.
    pub(crate) fn new(rule: IdRule) -> Self {
        IdMapper {
            rule,
            used: HashSet::new(),
            map: IdMap::default(),
        }
    }

    /// The new id for `id` when it breaks the rule (the same one every time it comes);
    /// `None` when it is kept.
    pub(crate) fn map_id(&mut self, id: &str) -> Option<String> {
        if let Some(t) = self.map.table.rewritten(id) {
            return Some(t.clone());
        }
        // An id that obeys the rule is kept, unless an earlier rewrite already wrote it.
        if self.rule.accepts(id) && self.used.insert(id.to_owned()) {
            return None;
        }
        let mut salt = if self.rule.accepts(id) { 1 } else { 0 };
        let new = loop {
            let candidate = self.rule.derive(id, salt);
            if !self.used.contains(&candidate) && self.rule.accepts(&candidate) {
                break candidate;
            }
            salt += 1;
        };
        self.used.insert(new.clone());
        self.map.table.insert(id.to_owned(), new.clone());
        Some(new)
    }

    /// The rewrites so far.
    pub(crate) fn map(&self) -> &IdMap {
        &self.map
    }
}

/// Whether every call and result id already obeys `rule` (the common case: nothing to
/// rewrite, nothing to allocate).
fn all_accepted<'a>(
    rule: IdRule,
    mut messages: impl Iterator<Item = &'a crate::model::Message>,
) -> bool {
    messages.all(|m| {
        m.content.iter().all(|p| match p {
            Part::ToolCall(c) => rule.accepts(&c.id),
            Part::ToolResult(r) => rule.accepts(&r.call_id),
            _ => true,
        })
    })
}

/// Every call id and result call id of a message list, in order, with the neutral
/// pointer of its first use.
fn collect<'a>(
    messages: impl Iterator<Item = (String, &'a crate::model::Message)>,
) -> Vec<(&'a str, String)> {
    let mut out = Vec::new();
    for (at, m) in messages {
        for (j, p) in m.content.iter().enumerate() {
            match p {
                Part::ToolCall(c) => out.push((c.id.as_str(), format!("{at}/content/{j}/id"))),
                Part::ToolResult(r) => {
                    out.push((r.call_id.as_str(), format!("{at}/content/{j}/call_id")))
                }
                _ => {}
            }
        }
    }
    out
}

fn apply(map: &IdMap, messages: &mut [crate::model::Message]) {
    for m in messages {
        for p in &mut m.content {
            match p {
                Part::ToolCall(c) => {
                    if let Some(t) = map.table.rewritten(&c.id) {
                        c.id = t.clone();
                    }
                }
                Part::ToolResult(r) => {
                    if let Some(t) = map.table.rewritten(&r.call_id) {
                        r.call_id = t.clone();
                    }
                }
                _ => {}
            }
        }
    }
}

fn report(map: &IdMap, uses: &[(&str, String)], rule: IdRule, ctx: &mut Ctx<'_>) {
    let mut reported = HashSet::new();
    let mut first: HashMap<&str, &str> = HashMap::new();
    for (id, at) in uses {
        first.entry(id).or_insert(at.as_str());
    }
    for (id, at) in uses {
        if let Some(new) = map.table.rewritten(id) {
            if reported.insert(*id) {
                ctx.changed(
                    LossCode::IdRewritten,
                    first.get(id).copied().unwrap_or(at.as_str()),
                    format!(
                        "tool-call id `{id}` is not valid for {} ({}); written as `{new}` (calls and results alike)",
                        ctx.format,
                        rule.describe()
                    ),
                );
            }
        }
    }
}

/// Rewrites the ids of a request for `ctx.format`, recording one loss per rewritten id.
pub(crate) fn map_request(req: &mut Request, ctx: &mut Ctx<'_>) -> IdMap {
    let rule = IdRule::of(ctx.format);
    if all_accepted(rule, req.messages.iter()) {
        return IdMap::default();
    }
    let uses = collect(
        req.messages
            .iter()
            .enumerate()
            .map(|(i, m)| (format!("/messages/{i}"), m)),
    );
    let map = IdMap::build(rule, uses.iter().map(|(id, _)| *id));
    if !map.is_empty() {
        report(&map, &uses, rule, ctx);
        apply(&map, &mut req.messages);
    }
    map
}

/// Rewrites the call ids of a response for `ctx.format`.
pub(crate) fn map_response(resp: &mut Response, ctx: &mut Ctx<'_>) -> IdMap {
    let rule = IdRule::of(ctx.format);
    if all_accepted(rule, resp.choices.iter().map(|c| &c.message)) {
        return IdMap::default();
    }
    let uses = collect(
        resp.choices
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("/choices/{i}/message"), &c.message)),
    );
    let map = IdMap::build(rule, uses.iter().map(|(id, _)| *id));
    if !map.is_empty() {
        report(&map, &uses, rule, ctx);
        for c in &mut resp.choices {
            apply(&map, std::slice::from_mut(&mut c.message));
        }
    }
    map
}

/// An id for a call that had none: from its position and name, so the same transcript
/// always gets the same ids.
pub(crate) fn synthetic_id(neutral_message: &str, call: usize, name: &str) -> String {
    let m = neutral_message.rsplit('/').next().unwrap_or("0");
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("call_{m}_{call}_{clean}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_accept_exactly_their_characters_and_lengths() {
        let safe = IdRule::Safe { max: Some(64) };
        assert!(safe.accepts(&"a".repeat(64)));
        assert!(!safe.accepts(&"a".repeat(65)));
        assert!(safe.accepts("call_AZ-09"));
        for bad in ["", "call.1", "a b", "café", "é"] {
            assert!(!safe.accepts(bad), "{bad:?}");
        }
        assert!(IdRule::Safe { max: None }.accepts(&"a".repeat(200)));
        assert!(IdRule::Nine.accepts("abcDEF123"));
        // Nine bytes but eight characters, and nine characters with a `_`.
        assert!(!IdRule::Nine.accepts("abcdefgé"));
        assert!(!IdRule::Nine.accepts("abcd_fghi"));
        assert!(IdRule::Any.accepts("é") && !IdRule::Any.accepts(""));
    }

    #[test]
    fn valid_ids_are_kept_and_invalid_ones_rewritten_per_rule() {
        let map = IdMap::build(IdRule::Nine, ["D681PevKs", "call_abc", "toolu_01"]);
        assert_eq!(map.get("D681PevKs"), "D681PevKs");
        let a = map.get("call_abc");
        let b = map.get("toolu_01");
        assert!(IdRule::Nine.accepts(a) && IdRule::Nine.accepts(b) && a != b);
        assert_eq!(map.reverse(a), "call_abc");

        let map = IdMap::build(
            IdRule::Safe { max: Some(64) },
            ["call.1", "call_1", "x".repeat(80).as_str()],
        );
        assert_eq!(map.get("call_1"), "call_1");
        // `call.1` would become `call_1`, which is taken: it gets a suffix instead.
        assert_eq!(map.get("call.1"), "call_1_2");
        assert_eq!(map.get(&"x".repeat(80)).len(), 64);
    }

    #[test]
    fn the_same_ids_always_map_the_same_way() {
        let ids = ["a.b", "a:b", "a b"];
        assert_eq!(
            IdMap::build(IdRule::Safe { max: None }, ids),
            IdMap::build(IdRule::Safe { max: None }, ids)
        );
        let map = IdMap::build(IdRule::Safe { max: None }, ids);
        let targets: HashSet<&str> = ids.iter().map(|i| map.get(i)).collect();
        assert_eq!(targets.len(), 3);
    }
}
