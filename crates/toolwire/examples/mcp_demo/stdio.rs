//! The MCP stdio transport over [`McpServer`]: newline-delimited JSON-RPC messages in,
//! one message per line out (UTF-8, no embedded newlines), each `tools/call` run on a
//! thread of its own so that further messages (other calls, cancellations, pings) are
//! read while it runs.
//!
//! Closing the input is the stdio transport's shutdown: calls still running get `grace`
//! to finish and send their responses, then they are cancelled and [`serve`] returns.

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use toolwire::registry::mcp::McpServer;

/// Where every line goes: responses and notifications from any thread, one whole line
/// at a time.
#[derive(Clone)]
struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    fn send(&self, message: &str) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // A peer that stopped reading is gone; its messages have nowhere to go.
        let _ = writeln!(w, "{message}").and_then(|()| w.flush());
    }
}

/// One line of input, read with at most `max` bytes kept.
enum Line {
    /// A whole line (without its newline).
    Whole(Vec<u8>),
    /// A line longer than `max`: how many bytes it had.
    TooLong(usize),
}

/// Reads the next line keeping at most `max` bytes of it, so a line without end cannot
/// fill the memory; `None` at the end of the input.
fn read_line(input: &mut impl BufRead, max: usize) -> io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut seen = 0usize;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            let last = if seen > max {
                Line::TooLong(seen)
            } else {
                Line::Whole(line)
            };
            return Ok((seen > 0).then_some(last));
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        seen += chunk.len();
        if seen <= max {
            line.extend_from_slice(chunk);
        } else {
            line = Vec::new();
        }
        let used = done.unwrap_or(buf.len());
        input.consume(used);
        if done.is_some() {
            return Ok(Some(if seen > max {
                Line::TooLong(seen)
            } else {
                Line::Whole(line)
            }));
        }
    }
}

/// Serves `server` over `input` and `output` until the input ends.
pub(crate) fn serve(
    mut server: McpServer,
    mut input: impl BufRead,
    output: impl Write + Send + 'static,
    grace: Duration,
) -> io::Result<()> {
    let out = Out(Arc::new(Mutex::new(Box::new(output))));
    let mut running: Vec<JoinHandle<()>> = Vec::new();
    let max = server.max_message_bytes();
    while let Some(line) = read_line(&mut input, max)? {
        let handled = match line {
            Line::TooLong(n) => {
                out.send(&server.refuse_oversized(n));
                continue;
            }
            Line::Whole(l) if l.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Whole(l) => server.handle_bytes(&l),
        };
        for m in &handled.messages {
            out.send(m);
        }
        if let Some(call) = handled.call {
            let out = out.clone();
            running.retain(|h| !h.is_finished());
            running.push(std::thread::spawn(move || {
                let notify = out.clone();
                if let Some(response) = call.run(move |n| notify.send(&n)) {
                    out.send(&response);
                }
            }));
        }
    }
    // The client closed its end: let running calls finish within the grace period,
    // then cancel what is left and give it a moment to stop.
    let deadline = Instant::now() + grace;
    while running.iter().any(|h| !h.is_finished()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    server.cancel_all();
    let deadline = Instant::now() + Duration::from_millis(500);
    while running.iter().any(|h| !h.is_finished()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}
