//! An MCP server over Streamable HTTP at `http://ADDR/mcp` serving the demo registry
//! (`mcp_demo/registry.rs`); the transport is `mcp_demo/http.rs` (tiny_http, std
//! threads), the protocol `toolwire::registry::mcp::McpServer`.
//!
//! `cargo run -p toolwire --example mcp_http -- 127.0.0.1:PORT [--max-secs N]`
//!
//! It binds loopback addresses only (default `127.0.0.1:0`, an unused port, printed on
//! stderr) and stops when its stdin closes (Ctrl-D) or after `--max-secs`.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use toolwire::registry::mcp::{McpServer, ServerOptions};

#[path = "mcp_demo/http.rs"]
mod http;
#[path = "mcp_demo/registry.rs"]
mod registry;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut addr: SocketAddr = "127.0.0.1:0".parse()?;
    let mut max_secs: Option<u64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--max-secs" => {
                max_secs = Some(args.next().ok_or("--max-secs needs a number")?.parse()?)
            }
            other => addr = other.parse()?,
        }
    }
    if !addr.ip().is_loopback() {
        return Err(format!("{addr}: this demo binds loopback addresses only").into());
    }
    registry::registry()?; // a bad registry fails here, not in the first session
    let server = tiny_http::Server::http(addr).map_err(|e| e.to_string())?;
    let bound = server.server_addr().to_ip().ok_or("not an IP address")?;
    eprintln!("mcp_http: serving http://{bound}/mcp (stops when stdin closes)");
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            stop.store(true, Ordering::Relaxed);
        });
    }
    if let Some(secs) = max_secs {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(secs));
            stop.store(true, Ordering::Relaxed);
        });
    }
    let endpoint = Arc::new(http::Endpoint::new(|| {
        let options = ServerOptions {
            name: "toolwire-demo".into(),
            ..Default::default()
        };
        // Checked above: the registry builds.
        McpServer::new(registry::registry().unwrap_or_default(), options)
    }));
    http::serve(server, endpoint, stop);
    Ok(())
}
