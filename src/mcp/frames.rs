//! The lines between the client and the SDK. JSON-RPC answers input that
//! is not JSON with a parse error (-32700, `id` null); the SDK drops such
//! a line without a word, so a client waits for an answer that never
//! comes. And a `tools/call` without a tool `name` does not fit the SDK's
//! request type, which it answers as an unknown method (-32601) where the
//! method is known and its params are wrong (-32602). So each line the
//! client sends is looked at here first: those two are answered here, the
//! rest pass to the SDK unchanged. What the SDK writes and what is answered
//! here go out through one writer, a whole line at a time, so two answers
//! never interleave.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The answer to `line` when it is not for the SDK.
pub(super) fn answer(line: &[u8]) -> Option<String> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let v: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Some(error(Value::Null, -32700, &format!("Parse error: {e}"))),
    };
    let id = v.get("id").filter(|id| id.is_string() || id.is_number())?;
    let named = v.pointer("/params/name").is_some_and(Value::is_string);
    (v.get("method").and_then(Value::as_str) == Some("tools/call") && !named).then(|| {
        error(
            id.clone(),
            -32602,
            "tools/call needs params.name, the tool to call (tools/list names them)",
        )
    })
}

fn error(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Reads the client's lines from `input`: answers those [`answer`] answers
/// (through `answers`), passes the others to the SDK's `sdk`. Ends, closing
/// `sdk`, when the client closes its side.
pub(super) async fn read(
    input: impl AsyncRead + Unpin,
    mut sdk: impl AsyncWrite + Unpin,
    answers: mpsc::UnboundedSender<String>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(a) = answer(&line) {
            if answers.send(a).is_err() {
                break;
            }
            continue;
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        if sdk.write_all(&line).await.is_err() || sdk.flush().await.is_err() {
            break;
        }
    }
    let _ = sdk.shutdown().await;
}

/// Writes to `output` the SDK's lines (from `sdk`) and the answers given
/// here, each whole, until both are done.
pub(super) async fn write(
    sdk: impl AsyncRead + Unpin,
    mut answers: mpsc::UnboundedReceiver<String>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut sdk = BufReader::new(sdk);
    let (mut sdk_open, mut answers_open) = (true, true);
    let mut line = Vec::new();
    while sdk_open || answers_open {
        line.clear();
        tokio::select! {
            read = sdk.read_until(b'\n', &mut line), if sdk_open => {
                if !matches!(read, Ok(n) if n > 0) {
                    sdk_open = false;
                    continue;
                }
            }
            a = answers.recv(), if answers_open => match a {
                Some(a) => {
                    line.extend_from_slice(a.as_bytes());
                    line.push(b'\n');
                }
                None => {
                    answers_open = false;
                    continue;
                }
            },
        }
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_json_is_a_parse_error_and_a_nameless_call_invalid_params() {
        let code = |line: &str| {
            answer(line.as_bytes()).map(|a| {
                let v: Value = serde_json::from_str(&a).unwrap();
                (v["error"]["code"].as_i64().unwrap(), v["id"].clone())
            })
        };
        for bad in [
            "{",
            "not json",
            "{\"jsonrpc\":\"2.0\",",
            "\u{1}",
            "[1,",
            "nul",
        ] {
            assert_eq!(code(bad), Some((-32700, Value::Null)), "{bad}");
        }
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
            Some((-32602, json!(7)))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call"}"#),
            Some((-32602, json!("a")))
        );
        for fine in [
            "",
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert_eq!(code(fine), None, "{fine}");
        }
    }
}
