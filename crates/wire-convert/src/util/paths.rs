//! JSON pointers of list items, written into reused buffers without the formatting
//! machinery (the hot path of long transcripts).

/// Rewrites `buf` to `args`: a pointer built in a buffer reused across the items of a
/// loop, instead of a fresh `String` per item (the hot path of long transcripts).
///
/// The pointer is `{parent}/{key}/{index}`, written without the formatting machinery: a
/// short response's conversion writes one per part, and `format!` made those pointers a
/// large share of its time.
pub(crate) fn set_path(buf: &mut String, parent: &str, key: &str, index: usize) {
    // One layout of item pointers: [`ItemPaths`]'s, for a single item.
    let mut paths = ItemPaths::new(std::mem::take(buf), parent, key);
    paths.at(index);
    *buf = paths.into_buf();
}

/// The two-digit numbers `00` to `99`, one after another: [`push_index`] writes an index
/// two digits at a time from this text.
const PAIRS: &str = "0001020304050607080910111213141516171819\
                     2021222324252627282930313233343536373839\
                     4041424344454647484950515253545556575859\
                     6061626364656667686970717273747576777879\
                     8081828384858687888990919293949596979899";

/// The pointers `{parent}/{key}/{index}` of the items of one list (a message's parts),
/// in one buffer whose `{parent}/{key}/` is written once: [`ItemPaths::at`] only
/// rewrites the index.
pub(crate) struct ItemPaths {
    buf: String,
    prefix: usize,
}

impl ItemPaths {
    /// The pointers of the items under `{parent}/{key}`, built in `buf` (its text
    /// replaced; a buffer from [`Ctx::buf`], say).
    pub(crate) fn new(mut buf: String, parent: &str, key: &str) -> ItemPaths {
        buf.clear();
        buf.push_str(parent);
        buf.push('/');
        buf.push_str(key);
        buf.push('/');
        let prefix = buf.len();
        ItemPaths { buf, prefix }
    }

    /// The pointer of item `index`.
    pub(crate) fn at(&mut self, index: usize) -> &str {
        self.buf.truncate(self.prefix);
        push_index(&mut self.buf, index);
        &self.buf
    }

    /// The buffer, for reuse.
    pub(crate) fn into_buf(self) -> String {
        self.buf
    }
}

/// Appends `index` in decimal, without the formatting machinery (which costs several
/// times as much for the short numbers of pointers): two digits at a time, from a table
/// of text, so nothing is checked for UTF-8 on the way.
pub(crate) fn push_index(buf: &mut String, index: usize) {
    let pair =
        |buf: &mut String, n: usize| buf.push_str(PAIRS.get(2 * n..2 * n + 2).unwrap_or("00"));
    if index < 10 {
        buf.push(char::from(b'0' + index as u8));
    } else if index < 100 {
        pair(buf, index);
    } else if index < 1000 {
        buf.push(char::from(b'0' + (index / 100) as u8));
        pair(buf, index % 100);
    } else if index < 10_000 {
        pair(buf, index / 100);
        pair(buf, index % 100);
    } else {
        // The digits above the last four, then those four (with their zeros).
        push_index(buf, index / 10_000);
        let low = index % 10_000;
        pair(buf, low / 100);
        pair(buf, low % 100);
    }
}
