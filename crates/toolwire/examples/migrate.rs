//! A transcript migration: an OpenAI Chat conversation with tools, images and a document,
//! converted to Anthropic and to Gemini, with the loss report of each.
//!
//! Run: `cargo run -p toolwire --example migrate`

use toolwire::prelude::*;

const TRANSCRIPT: &str =
    include_str!("../../../fixtures/openai-chat/request/handmade-multi-turn-tools.json");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for target in [Format::Anthropic, Format::Gemini] {
        let out = convert_request(TRANSCRIPT, Format::OpenaiChat, target, &Options::default())?;
        println!(
            "== openai-chat → {target}: {} bytes, {} loss(es)",
            out.value.len(),
            out.losses.len()
        );
        for loss in &out.losses {
            println!("  {loss}");
        }
        for (from, to) in out.ids.iter() {
            println!("  id {from} → {to}");
        }
        // The result reads back as a valid body of the target format.
        let back = decode_request(&out.value, target, &Options::default())?;
        println!("  read back: {} messages", back.value.messages.len());
    }
    Ok(())
}
