// goonbench: encodes graphwire's GOON benchmark inputs with Orbit's Rust
// encoder (src/encode.rs, added by run.sh), so that graphwire's Go encoder
// can be measured side by side on the same inputs.
//
//   goonbench write DIR IN.json...     write DIR/<name>.goon for each input
//   goonbench conf N IN.json...        encode all inputs once per op, N ops
//   goonbench one N IN.json            encode one input N times
//
// The version printed is 1.0.0, as the conformance cases ask. Timing is
// left to the caller (run.sh measures CPU time with /usr/bin/time), so
// nothing here reads the clock but a one-line wall-clock summary on stderr.

mod encode;
mod graph;

use std::hint::black_box;
use std::time::Instant;

fn load(path: &str) -> graph::GraphResponse {
    let text = std::fs::read_to_string(path).expect("read input");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("parse input");
    graph::from_json(&doc)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let version = semver::Version::new(1, 0, 0);
    match args.get(1).map(String::as_str) {
        Some("write") => {
            let dir = &args[2];
            for path in &args[3..] {
                let name = std::path::Path::new(path).file_name().unwrap().to_str().unwrap();
                let name = name.trim_end_matches(".input.json").trim_end_matches(".json");
                let out = encode::encode(&load(path), &version);
                std::fs::write(format!("{dir}/{name}.goon"), out).expect("write output");
            }
        }
        Some(mode @ ("conf" | "one")) => {
            let n: usize = args[2].parse().expect("N");
            let inputs: Vec<graph::GraphResponse> = args[3..].iter().map(|p| load(p)).collect();
            let start = Instant::now();
            let mut bytes = 0usize;
            for _ in 0..n {
                for r in &inputs {
                    bytes += black_box(encode::encode(black_box(r), &version)).len();
                }
            }
            let el = start.elapsed();
            eprintln!("{mode}: {n} ops, {:.1} us/op wall, {bytes} bytes", el.as_secs_f64() * 1e6 / n as f64);
        }
        _ => {
            eprintln!("usage: goonbench write DIR IN... | conf N IN... | one N IN");
            std::process::exit(2);
        }
    }
}
