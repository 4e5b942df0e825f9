// Reads JSON lines from stdin and writes, for each, how serde reads it as
// a CGP-shaped envelope: ok with its re-serialisation, or the error.
use serde::{Deserialize, Serialize};
use std::io::BufRead;

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Envelope {
    // As upstream's reference vectors write it: code before message.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        message: String,
    },
    Frames {
        result: FramesResult,
    },
    Shutdown,
}

#[derive(Serialize, Deserialize)]
struct FramesResult {
    frames: Vec<Frame>,
    truncated: bool,
}

#[derive(Serialize, Deserialize)]
struct Frame {
    id: String,
    kind: String,
    title: String,
    score: f32,
    token_cost: u32,
}

#[derive(Serialize)]
struct Outcome {
    line: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    serde: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn main() {
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let line = line.unwrap();
        if line.is_empty() {
            continue;
        }
        let out = match serde_json::from_str::<Envelope>(&line) {
            Ok(v) => Outcome { line, ok: true, serde: Some(serde_json::to_string(&v).unwrap()), error: None },
            Err(e) => Outcome { line, ok: false, serde: None, error: Some(e.to_string()) },
        };
        println!("{}", serde_json::to_string(&out).unwrap());
    }
}
