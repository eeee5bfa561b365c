//! `toolwire stream`: a live stream read as it arrives, written as another format's
//! stream event by event, or added up into the response it makes.

use crate::print_losses;
use std::io::{Read, Write};
use std::process::ExitCode;
use toolwire::convert::stream::{Accumulator, Framing, StreamDecoder, StreamTranslator};
use toolwire::convert::{Error, Options};
use toolwire::types::Format;

/// How Bedrock events are framed on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum BedrockFrames {
    /// AWS event-stream binary messages, as ConverseStream sends them.
    Binary,
    /// One `{"<eventType>": payload}` JSON object a line, as boto3 yields them.
    Json,
}

/// The framing of `format`'s stream here: its wire framing, but Bedrock as the option
/// says.
fn framing(format: Format, bedrock: BedrockFrames) -> Framing {
    match (format, bedrock) {
        (Format::Bedrock, BedrockFrames::Json) => Framing::Ndjson,
        _ => Framing::of(format),
    }
}

/// The options of `toolwire stream`.
pub(crate) struct Args {
    pub(crate) from: Format,
    pub(crate) to: Option<Format>,
    pub(crate) accumulate: bool,
    pub(crate) strict: bool,
    pub(crate) bedrock: BedrockFrames,
    pub(crate) input: String,
}

/// A source of the stream's bytes, read as they come.
fn open(input: &str) -> Result<Box<dyn Read>, String> {
    if input == "-" {
        Ok(Box::new(std::io::stdin()))
    } else {
        std::fs::File::open(input)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| format!("{input}: {e}"))
    }
}

/// Reads `input` piece by piece (as a socket or pipe delivers it), handing each piece to
/// `push`.
fn each_piece(
    input: &str,
    mut push: impl FnMut(&[u8]) -> Result<(), String>,
) -> Result<(), String> {
    let mut source = open(input)?;
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("{input}: {e}")),
        };
        push(&buf[..n])?;
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode, String> {
    let options = Options::default();
    if args.accumulate {
        accumulate(&args, &options)
    } else {
        translate(&args, &options)
    }
}

fn translate(args: &Args, options: &Options) -> Result<ExitCode, String> {
    let to = args.to.unwrap_or(args.from);
    let mut t = StreamTranslator::with_framing(
        args.from,
        framing(args.from, args.bedrock),
        to,
        framing(to, args.bedrock),
        options,
    )
    .map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut reported = 0;
    let mut report = |t: &StreamTranslator| {
        let losses = t.losses();
        print_losses(&losses[reported.min(losses.len())..], None);
        reported = losses.len();
    };
    let write = |bytes: Vec<u8>, out: &mut std::io::StdoutLock<'_>| -> Result<(), String> {
        if !bytes.is_empty() {
            // Flushed at once: each event reaches the reader as soon as it is written.
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    };
    each_piece(&args.input, |piece| {
        let bytes = t.push(piece).map_err(|e| e.to_string())?;
        write(bytes, &mut out)?;
        report(&t);
        Ok(())
    })?;
    let bytes = t.finish().map_err(|e| e.to_string())?;
    write(bytes, &mut out)?;
    report(&t);
    if let Some(e) = t.error() {
        // Written to stdout as the target's error event too; the exit code says the
        // answer is not whole, as with --accumulate.
        eprintln!("toolwire: incomplete stream: {e}");
        return Ok(ExitCode::from(2));
    }
    if args.strict && !t.losses().is_empty() {
        eprintln!("toolwire: --strict: {} loss(es)", t.losses().len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn accumulate(args: &Args, options: &Options) -> Result<ExitCode, String> {
    let mut decoder =
        StreamDecoder::with_framing(args.from, framing(args.from, args.bedrock), options)
            .map_err(|e| e.to_string())?;
    let mut acc = Accumulator::new();
    each_piece(&args.input, |piece| {
        acc.extend(decoder.push(piece).map_err(|e| e.to_string())?);
        Ok(())
    })?;
    acc.extend(decoder.finish().map_err(|e| e.to_string())?);
    let to = args.to.unwrap_or(args.from);
    let mut losses = decoder.losses().to_vec();
    let (response, broken) = match acc.finish() {
        Ok(r) => (r, None),
        // What arrived is still printed; the error says why it is not the whole answer.
        Err(Error::Incomplete { error, partial }) => (*partial, Some(error)),
        Err(e) => return Err(e.to_string()),
    };
    let out = toolwire::convert::encode_response_value(response, to, options)
        .map_err(|e| e.to_string())?;
    losses.extend(out.losses);
    print_losses(&losses, None);
    println!("{}", crate::render(&out.value));
    if let Some(e) = broken {
        eprintln!("toolwire: incomplete stream: {e}");
        return Ok(ExitCode::from(2));
    }
    if args.strict && !losses.is_empty() {
        eprintln!("toolwire: --strict: {} loss(es)", losses.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
