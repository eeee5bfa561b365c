//! An Anthropic Messages gateway over an OpenAI Chat Completions upstream: serve
//! `POST /v1/messages` (streaming and not) to Anthropic clients — a coding agent, the
//! official SDK — while the model behind it speaks OpenAI Chat.
//!
//! ```text
//! cargo run -p toolwire --example gateway -- --listen 127.0.0.1:8787 --upstream http://127.0.0.1:8000
//! ANTHROPIC_BASE_URL=http://127.0.0.1:8787 your-anthropic-client
//! ```
//!
//! Every request body is converted with toolwire (`convert_request`, Anthropic → OpenAI
//! Chat), sent to `URL/v1/chat/completions`, and the answer converted back: a whole body
//! with `convert_response`, a stream event by event with `StreamTranslator` (each
//! Anthropic event is written to the client as soon as it is known). An upstream error
//! comes back as an Anthropic error with the same status. Losses are logged on stderr.
//!
//! Options: `--listen ADDR` (default `127.0.0.1:8787`), `--upstream URL` (required;
//! plain HTTP: a local OpenAI-compatible server — vLLM, Ollama's `/v1`, a LiteLLM proxy —
//! or a TLS-terminating proxy in front of a provider), `--model NAME` (send this model
//! instead of the one the client asked for), `--api-key KEY` (or `UPSTREAM_API_KEY`; else
//! the client's `x-api-key` is passed on as the bearer token), `--exit-after-idle SECS`
//! (stop when no request came for that long: for tests).
//!
//! The HTTP crates (`tiny_http` to serve, `ureq` to call the upstream) are this example's
//! own; the toolwire libraries do no I/O.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use toolwire::convert::stream::StreamTranslator;
use toolwire::convert::{Format, Loss, Options, convert_request, convert_response};

struct Config {
    listen: String,
    upstream: String,
    model: Option<String>,
    api_key: Option<String>,
    idle: Option<Duration>,
}

fn args() -> Result<Config, String> {
    let mut config = Config {
        listen: "127.0.0.1:8787".to_owned(),
        upstream: String::new(),
        model: None,
        api_key: std::env::var("UPSTREAM_API_KEY").ok(),
        idle: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--listen" => config.listen = value()?,
            "--upstream" => config.upstream = value()?.trim_end_matches('/').to_owned(),
            "--model" => config.model = Some(value()?),
            "--api-key" => config.api_key = Some(value()?),
            "--exit-after-idle" => {
                let secs: u64 = value()?
                    .parse()
                    .map_err(|e| format!("--exit-after-idle: {e}"))?;
                config.idle = Some(Duration::from_secs(secs));
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if config.upstream.is_empty() {
        return Err("--upstream URL is required".to_owned());
    }
    Ok(config)
}

fn main() {
    if std::env::args().len() == 1 {
        // No arguments: say how to run it (what `.ci/run` checks when it runs each
        // example); the gateway's own test runs it for real.
        eprintln!(
            "usage: gateway --upstream URL [--listen ADDR] [--model NAME] [--api-key KEY] [--exit-after-idle SECS]"
        );
        return;
    }
    let config = match args() {
        Ok(c) => Arc::new(c),
        Err(e) => {
            eprintln!("gateway: {e}");
            std::process::exit(2);
        }
    };
    let server = match tiny_http::Server::http(&config.listen) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("gateway: cannot listen on {}: {e}", config.listen);
            std::process::exit(2);
        }
    };
    match server.server_addr().to_ip() {
        Some(addr) => eprintln!("gateway: listening on http://{addr}"),
        None => eprintln!("gateway: listening on {}", config.listen),
    }
    let last = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    loop {
        let request = match config.idle {
            Some(idle) => match server.recv_timeout(Duration::from_millis(200)) {
                Ok(Some(r)) => r,
                Ok(None) => {
                    let since = start.elapsed().as_secs() - last.load(Ordering::Relaxed);
                    if since >= idle.as_secs() {
                        eprintln!("gateway: idle for {since} s, stopping");
                        return;
                    }
                    continue;
                }
                Err(e) => {
                    eprintln!("gateway: {e}");
                    return;
                }
            },
            None => match server.recv() {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("gateway: {e}");
                    return;
                }
            },
        };
        last.store(start.elapsed().as_secs(), Ordering::Relaxed);
        let config = config.clone();
        let last = last.clone();
        std::thread::spawn(move || {
            handle(request, &config);
            last.store(start.elapsed().as_secs(), Ordering::Relaxed);
        });
    }
}

fn log_losses(what: &str, losses: &[Loss]) {
    for l in losses {
        eprintln!("gateway: {what}: loss: {l}");
    }
}

/// An Anthropic error body (`{"type":"error","error":{"type","message"}}`).
fn anthropic_error(kind: &str, message: &str) -> String {
    serde_json::json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

/// The Anthropic error type for an upstream HTTP status.
fn error_kind(status: u16) -> &'static str {
    match status {
        400 | 422 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    }
}

fn respond_json(request: tiny_http::Request, status: u16, body: String) {
    let header =
        tiny_http::Header::from_bytes("content-type", "application/json").expect("a valid header");
    let response = tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header);
    if let Err(e) = request.respond(response) {
        eprintln!("gateway: writing the response: {e}");
    }
}

fn header(request: &tiny_http::Request, name: &str) -> Option<String> {
    request
        .headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_owned())
}

fn handle(mut request: tiny_http::Request, config: &Config) {
    if request.method() != &tiny_http::Method::Post || request.url() != "/v1/messages" {
        let body = anthropic_error("not_found_error", "this gateway serves POST /v1/messages");
        return respond_json(request, 404, body);
    }
    let mut body = String::new();
    if let Err(e) = request.as_reader().read_to_string(&mut body) {
        return respond_json(
            request,
            400,
            anthropic_error("invalid_request_error", &e.to_string()),
        );
    }
    let options = Options::default();
    let converted = match convert_request(&body, Format::Anthropic, Format::OpenaiChat, &options) {
        Ok(c) => c,
        Err(e) => {
            return respond_json(
                request,
                400,
                anthropic_error("invalid_request_error", &e.to_string()),
            );
        }
    };
    log_losses("request", &converted.losses);
    // Tool names OpenAI rejects (`fs.read`, say) went upstream rewritten: the response
    // and the stream give the client its own names back.
    let options = options.with_names(converted.names.clone());
    let mut upstream_body: serde_json::Value = match serde_json::from_str(&converted.value) {
        Ok(v) => v,
        Err(e) => return respond_json(request, 500, anthropic_error("api_error", &e.to_string())),
    };
    if let Some(model) = &config.model {
        upstream_body["model"] = serde_json::Value::String(model.clone());
    }
    let stream = upstream_body["stream"] == serde_json::Value::Bool(true);
    let key = config
        .api_key
        .clone()
        .or_else(|| header(&request, "x-api-key"))
        .unwrap_or_default();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let url = format!("{}/v1/chat/completions", config.upstream);
    let mut call = agent.post(&url).header("content-type", "application/json");
    if !key.is_empty() {
        call = call.header("authorization", &format!("Bearer {key}"));
    }
    let upstream = match call.send(upstream_body.to_string()) {
        Ok(r) => r,
        Err(e) => {
            let message = format!("the upstream did not answer: {e}");
            return respond_json(request, 502, anthropic_error("api_error", &message));
        }
    };
    let status = upstream.status().as_u16();
    let mut reader = upstream.into_body().into_reader();
    if status != 200 {
        let mut text = String::new();
        let _ = reader.read_to_string(&mut text);
        // The upstream's own message, when it is an OpenAI error body.
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
            .unwrap_or(text);
        return respond_json(
            request,
            status,
            anthropic_error(error_kind(status), &message),
        );
    }
    if !stream {
        let mut text = String::new();
        if let Err(e) = reader.read_to_string(&mut text) {
            return respond_json(request, 502, anthropic_error("api_error", &e.to_string()));
        }
        return match convert_response(&text, Format::OpenaiChat, Format::Anthropic, &options) {
            Ok(c) => {
                log_losses("response", &c.losses);
                respond_json(request, 200, c.value)
            }
            Err(e) => respond_json(request, 502, anthropic_error("api_error", &e.to_string())),
        };
    }
    stream_back(request, reader, &options);
}

/// Translates the upstream's OpenAI chunks into Anthropic events as they arrive, and
/// writes each to the client at once (a chunked `text/event-stream` response).
fn stream_back(request: tiny_http::Request, mut reader: impl Read, options: &Options) {
    let mut translator = match StreamTranslator::new(Format::OpenaiChat, Format::Anthropic, options)
    {
        Ok(t) => t,
        Err(e) => return respond_json(request, 500, anthropic_error("api_error", &e.to_string())),
    };
    let mut out = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    let chunk = |out: &mut Box<dyn Write + Send>, bytes: &[u8]| -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        write!(out, "{:x}\r\n", bytes.len())?;
        out.write_all(bytes)?;
        out.write_all(b"\r\n")?;
        out.flush()
    };
    if out
        .write_all(head.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return;
    }
    let mut buf = vec![0u8; 16 * 1024];
    let mut reported = 0;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("gateway: reading the upstream stream: {e}");
                break;
            }
        };
        match translator.push(&buf[..n]) {
            Ok(bytes) => {
                if chunk(&mut out, &bytes).is_err() {
                    // The client went away: stop reading the upstream.
                    return;
                }
            }
            Err(e) => {
                eprintln!("gateway: the upstream stream: {e}");
                let event = format!(
                    "event: error\ndata: {}\n\n",
                    anthropic_error("api_error", &e.to_string())
                );
                let _ = chunk(&mut out, event.as_bytes());
                let _ = out.write_all(b"0\r\n\r\n");
                return;
            }
        }
        let losses = translator.losses();
        log_losses("stream", &losses[reported.min(losses.len())..]);
        reported = losses.len();
    }
    match translator.finish() {
        Ok(bytes) => {
            let _ = chunk(&mut out, &bytes);
        }
        Err(e) => eprintln!("gateway: the upstream stream: {e}"),
    }
    let losses = translator.losses();
    log_losses("stream", &losses[reported.min(losses.len())..]);
    let _ = out.write_all(b"0\r\n\r\n");
    let _ = out.flush();
}
