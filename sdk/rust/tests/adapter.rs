//! The adapter loop over scripted lines: hello, ids, ok and err replies,
//! unknown ops, lines that are not requests, the hex and text helpers.

use referee::{hex_arg, hex_decode, hex_encode, serve_io, str_arg, OpError, Ops};
use serde_json::{json, Value};

fn ops() -> Ops {
    Ops::new("test-adapter", "0.2.0")
        .op("echo", |args| Ok(args.clone()))
        .op("upper", |args| {
            Ok(Value::String(str_arg(args, "value_text")?.to_uppercase()))
        })
        .op("reject", |_| {
            Err(OpError::new("parse_error", "bad input at offset 4"))
        })
        .op("uncoded", |_| {
            // Any std error converts, with no code.
            let n: u8 = "300".parse()?;
            Ok(json!(n))
        })
        .op("frame", |args| {
            let mut bytes = (hex_arg(args, "payload_hex")?.len() as u32)
                .to_be_bytes()
                .to_vec();
            bytes.extend(hex_arg(args, "payload_hex")?);
            Ok(Value::String(hex_encode(&bytes)))
        })
}

fn exchange(ops: Ops, input: &str) -> Vec<Value> {
    let mut out = Vec::new();
    serve_io(ops, input.as_bytes(), &mut out).expect("serve_io");
    let text = String::from_utf8(out).expect("UTF-8 replies");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "every reply ends its line: {text:?}"
    );
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("reply {l:?} is not JSON: {e}")))
        .collect()
}

#[test]
fn answers_each_request_by_its_id() {
    let input = concat!(
        "{\"id\":0,\"op\":\"hello\",\"args\":{\"protocol\":\"referee-adapter/1\",\"suite\":\"jcs\"}}\n",
        "{\"id\":7,\"op\":\"echo\",\"args\":{\"value\":[1,\"é\",null]}}\r\n",
        "{\"id\":8,\"op\":\"upper\",\"args\":{\"value_text\":\"abc\"}}\n",
        "\n",
        "{\"id\":9,\"op\":\"reject\",\"args\":{}}\n",
        "{\"id\":10,\"op\":\"uncoded\",\"args\":{}}\n",
        "{\"id\":11,\"op\":\"canonicalJsonBytes\",\"args\":{}}\n",
        "{\"id\":12,\"op\":\"upper\",\"args\":{\"value_text\":1}}\n",
        "{\"id\":13,\"op\":\"frame\",\"args\":{\"payload_hex\":\"7B7D\"}}\n",
        "{\"id\":14,\"op\":\"frame\",\"args\":{\"payload_hex\":\"7g\"}}\n",
        "{\"id\":18446744073709551615,\"op\":\"echo\",\"args\":null}",
    );
    let replies = exchange(ops(), input);
    let want = vec![
        json!({"id":0,"ok":{"name":"test-adapter","version":"0.2.0","ops":["echo","upper","reject","uncoded","frame"],"concurrency":1}}),
        json!({"id":7,"ok":{"value":[1,"é",null]}}),
        json!({"id":8,"ok":"ABC"}),
        json!({"id":9,"err":{"code":"parse_error","message":"bad input at offset 4"}}),
        json!({"id":10,"err":{"code":null,"message":"number too large to fit in target type"}}),
        json!({"id":11,"err":{"code":"unknown_op","message":"no op \"canonicalJsonBytes\""}}),
        json!({"id":12,"err":{"code":"bad_args","message":"args.value_text is a number, not a string"}}),
        json!({"id":13,"ok":"000000027b7d"}),
        json!({"id":14,"err":{"code":"bad_args","message":"args.payload_hex: not hex at offset 1"}}),
        json!({"id":18446744073709551615u64,"ok":null}),
    ];
    assert_eq!(replies, want);
}

#[test]
fn a_line_that_is_no_request_gets_bad_request() {
    let input = "not json\n[1]\n{\"id\":\"4\",\"op\":\"echo\"}\n{\"id\":1.5,\"op\":\"echo\"}\n{\"id\":5}\n{\"id\":6,\"op\":\"echo\",\"args\":{}}\n";
    let replies = exchange(ops(), input);
    assert_eq!(replies.len(), 6);
    for (i, r) in replies[..4].iter().enumerate() {
        assert_eq!(r["id"], Value::Null, "reply {i}: {r}");
        assert_eq!(r["err"]["code"], "bad_request", "reply {i}: {r}");
    }
    assert_eq!(
        replies[4],
        json!({"id":5,"err":{"code":"bad_request","message":"the request has no op"}})
    );
    // The loop goes on after them.
    assert_eq!(replies[5], json!({"id":6,"ok":{}}));
}

#[test]
fn a_later_op_of_the_same_name_replaces_the_first() {
    let ops = Ops::new("x", "1")
        .op("a", |_| Ok(json!(1)))
        .op("b", |_| Ok(json!(2)))
        .op("a", |_| Ok(json!(3)));
    assert_eq!(ops.names(), ["a", "b"]);
    let replies = exchange(ops, "{\"id\":1,\"op\":\"a\",\"args\":{}}\n");
    assert_eq!(replies, [json!({"id":1,"ok":3})]);
}

#[test]
fn ops_keep_state_between_calls() {
    let mut calls = 0;
    let ops = Ops::new("x", "1").op("count", move |_| {
        calls += 1;
        Ok(json!(calls))
    });
    let replies = exchange(
        ops,
        "{\"id\":1,\"op\":\"count\",\"args\":{}}\n{\"id\":2,\"op\":\"count\",\"args\":{}}\n",
    );
    assert_eq!(replies, [json!({"id":1,"ok":1}), json!({"id":2,"ok":2})]);
}

#[test]
fn hex_round_trips_and_refuses_what_is_not_hex() {
    let bytes: Vec<u8> = (0..=255).collect();
    let hex = hex_encode(&bytes);
    assert!(hex.starts_with("000102") && hex.ends_with("fdfeff"));
    assert_eq!(hex_decode(&hex).unwrap(), bytes);
    assert_eq!(hex_decode(&hex.to_uppercase()).unwrap(), bytes);
    assert_eq!(hex_decode("").unwrap(), Vec::<u8>::new());
    for bad in ["0", "0g", "é0", "  "] {
        assert!(hex_decode(bad).is_err(), "{bad:?} decoded");
    }
}
