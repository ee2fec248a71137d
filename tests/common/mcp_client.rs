//! A client of `hipo mcp`: the real binary spawned, JSON-RPC lines over its
//! stdin and stdout.
#![allow(dead_code)]

use super::{Project, SAMPLE_TODAY as TODAY};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// How long a test waits for an answer or an exit.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A running `hipo mcp` and what it wrote so far.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: u64,
    /// Notifications received while waiting for responses.
    pub notes: Vec<Value>,
}

impl Client {
    /// Starts `hipo --dir P --today TODAY mcp EXTRA…` and initializes.
    pub fn start(p: &Project, extra: &[&str], env: &[(&str, &str)]) -> Client {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("hipo"));
        cmd.arg("--dir").arg(p.path());
        Client::spawn(cmd, extra, env)
    }

    /// Starts `CMD --today TODAY mcp EXTRA…` and initializes.
    pub fn spawn(mut cmd: Command, extra: &[&str], env: &[(&str, &str)]) -> Client {
        cmd.args(["--today", TODAY, "mcp"])
            .args(extra)
            .env_remove("HIPO_DIR")
            .env_remove("HIPO_LOCK_WAIT")
            .env_remove("CLAUDE_PROJECT_DIR")
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON-RPC: {line}: {e}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut c = Client {
            child,
            stdin,
            lines,
            next_id: 1,
            notes: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "hipo-test", "version": "0"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "hipo", "{init}");
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    pub fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Sends one line as it is (not necessarily JSON).
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes.
    pub fn next_line(&mut self) -> Value {
        self.lines
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("no answer"))
    }

    /// Sends a request and waits for its response (notifications that
    /// arrive meanwhile are kept in `notes`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let v = self
                .lines
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            if v["id"] == json!(id) {
                return v;
            }
            self.notes.push(v);
        }
    }

    /// Calls a tool; the whole response.
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": args}))
    }

    /// Calls a tool that must succeed; its text.
    pub fn text(&mut self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args);
        assert_eq!(r["result"]["isError"], false, "{tool}: {r}");
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: {r}"))
            .to_string()
    }

    /// Closes stdin and waits for the exit code and stderr.
    pub fn close(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let start = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut err = String::new();
                use std::io::Read;
                self.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut err)
                    .unwrap();
                return (status.code(), err);
            }
            assert!(
                start.elapsed() < PATIENCE,
                "hipo mcp did not end after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
