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
        id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        message: String,
    },
    // As upstream's reference vectors write it: id before result.
    Frames {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        result: FramesResult,
    },
    Verified {
        response: VerifyResponse,
    },
    Shutdown,
}

#[derive(Serialize, Deserialize)]
struct VerifyResponse {
    verdicts: Vec<Verdict>,
}

// A verdict: the frame, then its status, the internal tag of what follows.
#[derive(Serialize, Deserialize)]
struct Verdict {
    frame: FrameId,
    #[serde(flatten)]
    status: Status,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum Status {
    Valid,
    Stale {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replacement_digest: Option<String>,
    },
    Gone,
    Unknown,
}

#[derive(Serialize, Deserialize)]
struct FrameId {
    provider_id: String,
    frame_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_digest: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Embedding {
    fingerprint: String,
    vector: Vec<f32>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    embedding: Option<Embedding>,
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
