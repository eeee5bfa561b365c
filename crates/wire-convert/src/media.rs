//! Media every format shares: base64 data (the `base64` crate), image types sniffed from
//! their first bytes, media types guessed from a URL's file name, `data:` URLs.

use crate::model::Source;
use crate::{Ctx, Format, LossCode};
use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// Standard base64, padding optional.
const STANDARD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// URL-safe base64, padding optional.
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// The bytes of base64 text, standard or URL-safe, padded or not, line breaks and
/// spaces ignored; `None` if it is not base64.
pub(crate) fn decode_base64(data: &str) -> Option<Vec<u8>> {
    let cleaned;
    let data = if data.bytes().any(|b| b.is_ascii_whitespace()) {
        cleaned = data.split_ascii_whitespace().collect::<String>();
        cleaned.as_str()
    } else {
        data
    };
    STANDARD
        .decode(data)
        .or_else(|_| URL_SAFE.decode(data))
        .ok()
}

/// The first bytes of base64 data (up to 12, from its first 16 characters), for
/// sniffing; fewer when the data is shorter or not base64 there.
fn head(data: &str) -> Vec<u8> {
    let data = data.trim_start();
    let mut end = data.len().min(16);
    end -= end % 4;
    let chunk = data.get(..end).unwrap_or_default();
    decode_base64(chunk).unwrap_or_default()
}

/// The media type of base64 image data, from its magic bytes: PNG, JPEG, GIF or WebP.
pub(crate) fn sniff_image(data: &str) -> Option<&'static str> {
    let head = head(data);
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if head.get(..4) == Some(b"RIFF".as_slice())
        && head.get(8..12) == Some(b"WEBP".as_slice())
    {
        Some("image/webp")
    } else {
        None
    }
}

/// `application/pdf` when base64 data starts as a PDF does (`%PDF-`).
pub(crate) fn sniff_pdf(data: &str) -> Option<&'static str> {
    head(data)
        .starts_with(b"%PDF-")
        .then_some("application/pdf")
}

/// The media type a URL's file extension names (`…/cat.JPG?s=1` → `image/jpeg`), for the
/// formats that need one with a file URL.
pub(crate) fn guess_media_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        "wav" => "audio/wav",
        "mp3" => "audio/mp3",
        "aiff" => "audio/aiff",
        "aac" => "audio/aac",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        "mp4" => "video/mp4",
        "mpeg" | "mpg" => "video/mpeg",
        "mov" => "video/mov",
        "avi" => "video/avi",
        "webm" => "video/webm",
        "wmv" => "video/wmv",
        "flv" => "video/x-flv",
        "3gp" => "video/3gpp",
        "txt" => "text/plain",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "md" => "text/markdown",
        "xml" => "text/xml",
        _ => return None,
    })
}

/// Splits a `data:<media type>;base64,<data>` URL into its media type and base64 data.
pub(crate) fn parse_data_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    Some((media_type.to_owned(), data.to_owned()))
}

/// The source of a media URL: the base64 data and media type of a `data:` URL, any
/// other URL as it is (no media type).
pub(crate) fn source_of_url(url: String) -> (Source, Option<String>) {
    match parse_data_url(&url) {
        Some((mt, data)) => (Source::Base64 { data }, Some(mt)),
        None => (Source::Url { url }, None),
    }
}

/// A `data:` URL of base64 data.
pub(crate) fn data_url(media_type: Option<&str>, data: &str) -> String {
    format!(
        "data:{};base64,{data}",
        media_type.unwrap_or("application/octet-stream")
    )
}

/// An image's URL (from its `source` and `media_type`) for a format whose images are
/// URLs (`format`): its own URL, or a `data:` URL of its bytes. A file id or a text has no such form: a loss at `at`, and
/// `None`.
pub(crate) fn image_url(
    source: Source,
    media_type: Option<&str>,
    format: Format,
    at: &str,
    ctx: &mut Ctx<'_>,
) -> Option<String> {
    match source {
        Source::Url { url } => Some(url),
        Source::Base64 { data } => Some(data_url(media_type, &data)),
        Source::FileId { file_id } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!("{format} images take a URL, not a file id (`{file_id}`)"),
            );
            None
        }
        Source::Text { .. } => {
            ctx.dropped(
                LossCode::PartUnsupported,
                at.to_owned(),
                format!("an image given as text has no form in {format}"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_told_apart_by_their_magic_bytes() {
        for (data, media_type) in [
            ("iVBORw0KGgoAAAANSUhEUg", Some("image/png")),
            ("/9j/4AAQSkZJRgABAQ", Some("image/jpeg")),
            ("R0lGODlhAQABAIAAAP", Some("image/gif")),
            ("UklGRiQAAABXRUJQVlA4", Some("image/webp")),
            // RIFF, but WAVE: not an image (a prefix check on `UklGR` would say WebP).
            ("UklGRiQAAABXQVZFZm10", None),
            ("JVBERi0xLjQK", None),
            ("", None),
            ("not base64 at all!!", None),
        ] {
            assert_eq!(sniff_image(data), media_type, "{data}");
        }
        assert_eq!(
            sniff_pdf("JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoK"),
            Some("application/pdf")
        );
        assert_eq!(sniff_pdf("iVBORw0KGgo"), None);
    }

    #[test]
    fn base64_reads_either_alphabet_with_or_without_padding_and_line_breaks() {
        // "hi?>" is aGk/Pg== (standard) and aGk_Pg (URL-safe, unpadded).
        for data in ["aGk/Pg==", "aGk/Pg", "aGk_Pg", "aGk/\nPg=="] {
            assert_eq!(
                decode_base64(data).as_deref(),
                Some(b"hi?>".as_slice()),
                "{data}"
            );
        }
        assert_eq!(decode_base64("a*b"), None);
    }

    #[test]
    fn media_types_come_from_the_url_file_name() {
        assert_eq!(
            guess_media_type("https://x.org/a/cat.JPG?s=1"),
            Some("image/jpeg")
        );
        assert_eq!(guess_media_type("https://x.org/a/cat"), None);
    }

    #[test]
    fn data_urls_split_and_join() {
        let url = data_url(Some("image/png"), "iVBOR");
        assert_eq!(url, "data:image/png;base64,iVBOR");
        assert_eq!(
            parse_data_url(&url),
            Some(("image/png".to_owned(), "iVBOR".to_owned()))
        );
        assert_eq!(parse_data_url("https://x.org/cat.png"), None);
    }
}
