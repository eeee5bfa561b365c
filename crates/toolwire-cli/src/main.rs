//! `toolwire`: convert, detect and adapt LLM wire formats from the shell.
//!
//! Exit codes: 0 success; 1 `--strict` and something was lost; 2 unreadable input (the
//! message names the JSON pointer at fault) or a usage error.
//!
//! Input is read as bytes: a leading byte order mark is skipped, an object with the same
//! key twice is refused with its pointer (the body is read once, one way), and with
//! `--jsonl` a line that is not UTF-8 is one failed line, not the end of the run.

mod stream;

use clap::{Parser, Subcommand};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;
use toolwire::convert::{self, Converted, Loss, Options};
use toolwire::types::{Category, Format, Kind};

/// Speak the JSON of every major LLM API: convert request and response bodies between
/// providers, detect what a body is, adapt JSON Schemas to a provider's dialect.
#[derive(Parser)]
#[command(name = "toolwire", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a request or response body to another format.
    ///
    /// With --from, a bare conversation (one message or an array of them, as in that
    /// format's request) or a bare tools array converts too, to the target's items or
    /// tools value. The converted JSON goes to stdout; every loss (what the target could not carry)
    /// goes to stderr as `loss: <json-pointer>: <reason>`. Exit 0 on success, 1 with
    /// --strict when something was lost, 2 when the input cannot be read.
    Convert {
        /// Target format (see `toolwire formats`).
        #[arg(long, value_name = "FORMAT")]
        to: Format,
        /// Source format; detected (with the kind) when absent.
        #[arg(long, value_name = "FORMAT")]
        from: Option<Format>,
        /// Fail (exit 1, no output) when anything would be lost.
        #[arg(long)]
        strict: bool,
        /// One body per line in, one converted body per line out: output line N answers
        /// input line N, and is empty where that line was blank or failed (not UTF-8, not
        /// JSON, not a valid body, or lossy with --strict). Each failure is reported on
        /// stderr as `line N: error: …` and the rest go on; exit 2 if any line failed.
        #[arg(long)]
        jsonl: bool,
        /// Pretty-print the output (the default when stdout is a terminal).
        #[arg(long, conflicts_with = "compact")]
        pretty: bool,
        /// Compact output, one line (the default when stdout is not a terminal).
        #[arg(long)]
        compact: bool,
        /// Input file, or `-` for stdin (the default).
        #[arg(value_name = "FILE", default_value = "-")]
        input: String,
    },
    /// Adapt a JSON Schema (a tool's input) to a format's dialect.
    ///
    /// Losses (keywords the dialect cannot express) go to stderr as
    /// `loss: <json-pointer>: <reason>`.
    Schema {
        /// Target format.
        #[arg(long = "for", value_name = "FORMAT")]
        format: Format,
        /// Input file, or `-` for stdin (the default).
        #[arg(value_name = "FILE", default_value = "-")]
        input: String,
    },
    /// Print the format and kind of a body (`openai-chat request`).
    Detect {
        /// Input file, or `-` for stdin (the default).
        #[arg(value_name = "FILE", default_value = "-")]
        input: String,
    },
    /// Read a live stream (SSE; NDJSON for Ollama; AWS event-stream for Bedrock) as it
    /// arrives and write it as another format's stream, event by event, flushing after
    /// each; or, with --accumulate, print the response it adds up to.
    ///
    /// Losses go to stderr as `loss: <pointer>: <kind>: <reason>` (stream pointers name
    /// the part: `/parts/3/signature`). Exit 0 on success, 1 with --strict when something
    /// was lost, 2 when the stream is malformed (the message names the byte offset and
    /// the JSON pointer), carried the provider's error event, or broke off before it
    /// finished (what arrived is still written: the events so far and the target's
    /// error event, or with --accumulate the response so far).
    Stream {
        /// Format of the stream read.
        #[arg(long, value_name = "FORMAT")]
        from: Format,
        /// Format to write; the source's own when absent (its events, framed again).
        #[arg(long, value_name = "FORMAT")]
        to: Option<Format>,
        /// Print the final response body (in --to, or --from) instead of a stream.
        #[arg(long)]
        accumulate: bool,
        /// Exit 1 when anything was lost.
        #[arg(long)]
        strict: bool,
        /// How Bedrock events are framed, read or written.
        #[arg(long, value_enum, default_value = "binary")]
        bedrock_frames: stream::BedrockFrames,
        /// Input file, or `-` for stdin (the default).
        #[arg(value_name = "FILE", default_value = "-")]
        input: String,
    },
    /// List the format names, one a line.
    Formats,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("toolwire: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Formats => {
            for f in Format::CHAT {
                println!("{f}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Detect { input } => {
            let value = parse(&read_all(&input)?)?;
            let d = toolwire::types::detect(&value).map_err(|e| e.to_string())?;
            println!("{} {}", d.format, d.kind);
            Ok(ExitCode::SUCCESS)
        }
        Command::Schema { format, input } => {
            let schema = parse(&read_all(&input)?)?;
            let out = convert::adapt_schema(&schema, format, &Options::default())
                .map_err(|e| e.to_string())?;
            print_losses(&out.losses, None);
            println!("{}", pretty(&out.value));
            Ok(ExitCode::SUCCESS)
        }
        Command::Stream {
            from,
            to,
            accumulate,
            strict,
            bedrock_frames,
            input,
        } => stream::run(stream::Args {
            from,
            to,
            accumulate,
            strict,
            bedrock: bedrock_frames,
            input,
        }),
        Command::Convert {
            to,
            from,
            strict,
            jsonl,
            pretty: want_pretty,
            compact,
            input,
        } => {
            // `--strict` is applied here, after the losses are printed.
            let options = Options::default();
            if jsonl {
                convert_lines(&input, from, to, strict, &options)
            } else {
                let bytes = read_all(&input)?;
                let out = convert_one(&bytes, from, to, &options)?;
                print_losses(&out.losses, None);
                if strict && !out.losses.is_empty() {
                    eprintln!(
                        "toolwire: --strict: {} loss(es), nothing written",
                        out.losses.len()
                    );
                    return Ok(ExitCode::from(1));
                }
                let stdout = std::io::stdout();
                let pretty_out = want_pretty || (!compact && stdout.is_terminal());
                let mut w = std::io::BufWriter::new(stdout.lock());
                if pretty_out {
                    // For a person: the compact text read again and indented.
                    let v = parse(out.value.as_bytes())?;
                    writeln!(w, "{}", pretty(&v))
                } else {
                    writeln!(w, "{}", out.value)
                }
                .and_then(|()| w.flush())
                .map_err(|e| format!("stdout: {e}"))?;
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}

/// Converts one body, written as compact JSON text.
///
/// With `from` given, the body is read once, as text, straight into the format's wire
/// types (no `serde_json::Value` on the way): as a request, and if it is not one, as a
/// response (the error shown is the one that got further into the body). Without it,
/// the body is parsed once as a `Value` to detect its format and kind, and converted from
/// that value.
fn convert_one(
    bytes: &[u8],
    from: Option<Format>,
    to: Format,
    options: &Options,
) -> Result<Converted<String>, String> {
    let Some(format) = from else {
        return convert_detected(bytes, to, options);
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()))?;
    let request_error = match convert::convert_request(text, format, to, options) {
        Ok(out) => return Ok(out),
        Err(e) => e,
    };
    let response_error = match convert::convert_response(text, format, to, options) {
        Ok(out) => return Ok(out),
        Err(e) => e,
    };
    // Neither: a bare conversation (one message or an array) or tools array, perhaps.
    if let Ok(value) = toolwire::types::value_from_str(text) {
        if let Some(out) = convert_bare(&value, format, to, options) {
            return Ok(Converted {
                value: toolwire::types::to_string(&out.value),
                losses: out.losses,
                ids: out.ids,
                names: out.names,
            });
        }
    }
    let depth = |e: &convert::Error| e.pointer().map_or(0, str::len);
    Err(if depth(&response_error) > depth(&request_error) {
        response_error.to_string()
    } else {
        request_error.to_string()
    })
}

/// [`convert_one`] of a body whose format is detected (which needs its `Value`).
fn convert_detected(
    text: &[u8],
    to: Format,
    options: &Options,
) -> Result<Converted<String>, String> {
    let value = parse(text)?;
    let (format, kind) = match toolwire::types::detect(&value) {
        Ok(d) => (d.format, d.kind),
        Err(e) => return Err(format!("cannot tell the format: {e}; give it with --from")),
    };
    let result = match kind {
        Kind::Request => convert::convert_request_value(&value, format, to, options),
        Kind::Response => convert::convert_response_value(&value, format, to, options),
        other => {
            return Err(format!(
                "a {format} {other} cannot be converted (only requests and responses)"
            ));
        }
    };
    let out = result.map_err(|e| e.to_string())?;
    // A converted body is an object (a bare conversation or tools value: what it was):
    // anything else means it could not be written, and is never printed as if it were
    // the answer.
    if !(out.value.is_object() || out.value.is_array()) {
        return Err(format!(
            "the converted {to} body could not be written (got {})",
            if out.value.is_null() {
                "null"
            } else {
                "a non-object"
            }
        ));
    }
    Ok(Converted {
        value: toolwire::types::to_string(&out.value),
        losses: out.losses,
        ids: out.ids,
        names: out.names,
    })
}

/// A body that is no request or response of `format`, read as a bare conversation (one
/// message, or an array of them) or a bare tools value, and written as `to`'s: the
/// conversation items as an array, the tools value as `to` writes it. `None` when it is
/// neither.
fn convert_bare(
    value: &Value,
    format: Format,
    to: Format,
    options: &Options,
) -> Option<Converted<Value>> {
    if let Ok(decoded) = convert::decode_messages_value(value, format, options) {
        let request = convert::model::Request {
            messages: decoded.value.clone(),
            source: Some(format),
            ..Default::default()
        };
        let out = convert::encode_messages(request, to, options).ok()?;
        let items = out
            .value
            .iter()
            .map(|i| serde_json::from_str(i.get()))
            .collect::<Result<Vec<Value>, _>>()
            .ok()?;
        let losses = bare_losses(decoded.losses.clone(), out.losses, |p| {
            decoded.source_path(p)
        });
        return Some(Converted {
            value: Value::Array(items),
            losses,
            ids: out.ids,
            names: out.names,
        });
    }
    let decoded = convert::decode_tools_value(value, format, options).ok()?;
    let out = convert::encode_tools(decoded.value.clone(), to, options).ok()?;
    let losses = bare_losses(decoded.losses.clone(), out.losses, |p| {
        decoded.source_path(p)
    });
    Some(Converted {
        value: out.value,
        losses,
        ids: out.ids,
        names: out.names,
    })
}

/// The decoder's losses, then the encoder's with their pointers rewritten into the input.
fn bare_losses(
    mut decoded: Vec<Loss>,
    encoded: Vec<Loss>,
    source_path: impl Fn(&str) -> String,
) -> Vec<Loss> {
    decoded.extend(encoded.into_iter().map(|mut l| {
        l.path = source_path(&l.path);
        l
    }));
    decoded
}

fn convert_lines(
    input: &str,
    from: Option<Format>,
    to: Format,
    strict: bool,
    options: &Options,
) -> Result<ExitCode, String> {
    let reader: Box<dyn BufRead> = if input == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(input).map_err(|e| format!("{input}: {e}"))?,
        ))
    };
    let progress = std::io::stderr().is_terminal();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut failed, mut lossy, mut done) = (0usize, 0usize, 0usize);
    let mut lines = reader;
    // Bytes, not `String`: a line that is not UTF-8 is that line's error, not the run's.
    let mut line = Vec::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let n = lines
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("{input}: {e}"))?;
        if n == 0 {
            break;
        }
        number += 1;
        let body = trim_line(&line);
        // Whatever happens to the line, exactly one line is written for it.
        let mut answer = None;
        if !body.iter().all(u8::is_ascii_whitespace) {
            match convert_one(body, from, to, options) {
                Err(e) => {
                    failed += 1;
                    eprintln!("line {number}: error: {e}");
                }
                Ok(c) => {
                    print_losses(&c.losses, Some(number));
                    if strict && !c.losses.is_empty() {
                        lossy += 1;
                        eprintln!(
                            "line {number}: --strict: {} loss(es), nothing written",
                            c.losses.len()
                        );
                    } else {
                        answer = Some(c.value);
                    }
                }
            }
            done += 1;
        }
        writeln!(out, "{}", answer.as_deref().unwrap_or_default()).map_err(|e| e.to_string())?;
        if progress && done % 1000 == 0 && done > 0 {
            eprint!("\rtoolwire: {done} lines converted");
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    if progress && done >= 1000 {
        eprintln!("\rtoolwire: {done} lines converted");
    }
    Ok(if failed > 0 {
        ExitCode::from(2)
    } else if lossy > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// A line without its end (`\n` or `\r\n`).
fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub(crate) fn print_losses(losses: &[Loss], line: Option<usize>) {
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    for l in losses {
        let path = if l.path.is_empty() { "/" } else { &l.path };
        let _ = match line {
            None => writeln!(err, "loss: {path}: {}: {}", l.kind.name(), l.detail),
            Some(n) => writeln!(
                err,
                "loss: {path}: {}: {} (line {n})",
                l.kind.name(),
                l.detail
            ),
        };
    }
}

fn read_all(input: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    if input == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("stdin: {e}"))?;
    } else {
        bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    }
    Ok(bytes)
}

/// Parses a body: a leading byte order mark skipped, a duplicate key refused (so that
/// detection and conversion see the one reading there is).
fn parse(bytes: &[u8]) -> Result<Value, String> {
    toolwire::types::value_from_slice(bytes).map_err(|e| match e.category() {
        Category::Syntax => format!("not JSON: {e} (line {}, column {})", e.line(), e.column()),
        // JSON, but read two ways (a duplicate key): the pointer says where.
        _ => e.to_string(),
    })
}

fn pretty(v: &Value) -> String {
    toolwire::types::to_string_pretty(v)
}

/// A body as the command prints it.
pub(crate) fn render(v: &Value) -> String {
    pretty(v)
}
