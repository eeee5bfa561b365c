//! `toolwire`: convert, detect and adapt LLM wire formats from the shell.
//!
//! Exit codes: 0 success; 1 `--strict` and something was lost; 2 unreadable input (the
//! message names the JSON pointer at fault) or a usage error.

use clap::{Parser, Subcommand};
use serde_json::Value;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;
use toolwire::convert::{self, Converted, Loss, Options};
use toolwire::types::{Format, Kind};

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
    /// The converted JSON goes to stdout; every loss (what the target could not carry)
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
        /// One body per line in, one converted body per line out; a failed line is
        /// reported with its line number and the rest go on.
        #[arg(long)]
        jsonl: bool,
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
            let out = convert::schema::adapt(&schema, format, &Options::default());
            print_losses(&out.losses, None);
            println!("{}", pretty(&out.value));
            Ok(ExitCode::SUCCESS)
        }
        Command::Convert {
            to,
            from,
            strict,
            jsonl,
            input,
        } => {
            let options = Options {
                strict: false,
                ..Options::default()
            };
            if jsonl {
                convert_lines(&input, from, to, strict, &options)
            } else {
                let text = read_all(&input)?;
                let out = convert_one(&text, from, to, &options)?;
                print_losses(&out.losses, None);
                if strict && !out.losses.is_empty() {
                    eprintln!(
                        "toolwire: --strict: {} loss(es), nothing written",
                        out.losses.len()
                    );
                    return Ok(ExitCode::from(1));
                }
                println!("{}", pretty(&out.value));
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}

/// Converts one body: the format and kind are detected unless `from` is given (the kind
/// is still detected; a body detection cannot place is tried as a request, then as a
/// response).
fn convert_one(
    text: &str,
    from: Option<Format>,
    to: Format,
    options: &Options,
) -> Result<Converted<Value>, String> {
    let value = parse(text)?;
    let detected = toolwire::types::detect(&value);
    let (format, kind) = match (from, &detected) {
        (Some(f), Ok(d)) if d.format == f || matches!(d.kind, Kind::Request | Kind::Response) => {
            (f, Some(d.kind))
        }
        (Some(f), _) => (f, None),
        (None, Ok(d)) => (d.format, Some(d.kind)),
        (None, Err(e)) => return Err(format!("cannot tell the format: {e}; give it with --from")),
    };
    let result = match kind {
        Some(Kind::Request) => convert::convert_request_value(&value, format, to, options),
        Some(Kind::Response) => convert::convert_response_value(&value, format, to, options),
        Some(other) => {
            return Err(format!(
                "a {format} {other} cannot be converted (only requests and responses)"
            ));
        }
        None => {
            convert::convert_request_value(&value, format, to, options).or_else(|request_error| {
                convert::convert_response_value(&value, format, to, options)
                    .map_err(|_| request_error)
            })
        }
    };
    result.map_err(|e| e.to_string())
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
    let mut line = String::new();
    let mut number = 0usize;
    loop {
        line.clear();
        let n = lines
            .read_line(&mut line)
            .map_err(|e| format!("{input}: {e}"))?;
        if n == 0 {
            break;
        }
        number += 1;
        if line.trim().is_empty() {
            continue;
        }
        match convert_one(line.trim_end(), from, to, options) {
            Err(e) => {
                failed += 1;
                eprintln!("line {number}: error: {e}");
            }
            Ok(c) => {
                print_losses(&c.losses, Some(number));
                if strict && !c.losses.is_empty() {
                    lossy += 1;
                } else {
                    writeln!(out, "{}", c.value).map_err(|e| e.to_string())?;
                }
            }
        }
        done += 1;
        if progress && done % 1000 == 0 {
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

fn print_losses(losses: &[Loss], line: Option<usize>) {
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

fn read_all(input: &str) -> Result<String, String> {
    let mut text = String::new();
    if input == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("stdin: {e}"))?;
    } else {
        text = std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))?;
    }
    Ok(text)
}

fn parse(text: &str) -> Result<Value, String> {
    toolwire::types::from_str::<Value>(text)
        .map_err(|e| format!("not JSON: {e} (line {}, column {})", e.line(), e.column()))
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
