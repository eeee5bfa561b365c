//! Profiling aid: times the phases of one conversion of the benchmark transcript.
#[path = "../../wire-types/benches/support/transcript.rs"]
mod transcript;
use std::time::Instant;
use wire_convert::{Ctx, Format, Options};
fn main() {
    let text = transcript::openai_chat_transcript(5 * 1024 * 1024);
    let opts = Options::default();
    for _ in 0..5 {
        let t = Instant::now();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let a = t.elapsed();
        let o = serde_json::to_string(&v).unwrap();
        let b = t.elapsed();
        drop(v);
        let c = t.elapsed();
        println!(
            "Value parse {:.1} write {:.1} drop {:.1}",
            a.as_secs_f64() * 1e3,
            (b - a).as_secs_f64() * 1e3,
            (c - b).as_secs_f64() * 1e3
        );
        drop(o);
        let t = Instant::now();
        let req: wire_types::openai_chat::Request = wire_types::from_str(&text).unwrap();
        let t1 = t.elapsed();
        let mut ctx = Ctx::new(Format::OpenaiChat, &opts);
        let mut neutral = wire_convert::openai_chat::decode_request(req, &mut ctx).unwrap();
        let t2 = t.elapsed();
        wire_convert::passes::resolve_result_names(&mut neutral.messages);
        let t3 = t.elapsed();
        let mut ctx2 = Ctx::new(Format::Anthropic, &opts);
        let out = wire_convert::anthropic::encode_request(neutral, &mut ctx2).unwrap();
        let t4 = t.elapsed();
        let s = wire_types::to_string(&out);
        let t5 = t.elapsed();
        drop(out);
        let t6 = t.elapsed();
        drop(ctx);
        let t7 = t.elapsed();
        println!(
            "parse {:.1} decode {:.1} names {:.1} encode {:.1} write {:.1} drop-out {:.1} drop-ctx {:.1} = {:.1} ms ({} bytes)",
            t1.as_secs_f64() * 1e3,
            (t2 - t1).as_secs_f64() * 1e3,
            (t3 - t2).as_secs_f64() * 1e3,
            (t4 - t3).as_secs_f64() * 1e3,
            (t5 - t4).as_secs_f64() * 1e3,
            (t6 - t5).as_secs_f64() * 1e3,
            (t7 - t6).as_secs_f64() * 1e3,
            t7.as_secs_f64() * 1e3,
            s.len()
        );
    }
}
