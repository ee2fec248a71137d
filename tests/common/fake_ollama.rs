//! A fake Ollama server on 127.0.0.1 speaking the real HTTP API
//! (`/api/generate`, `/api/tags`, `/api/version`), so tests drive the real
//! ollama-rs client without a model. It records what it received, can be
//! told to misbehave, and stops when dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the server answers `/api/generate`.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    /// A plausible summary that echoes the first heading of the prompt.
    Ok,
    /// Answers after a delay.
    Slow(Duration),
    /// 404 "model not found".
    NotFound,
    /// Not JSON.
    Garbage,
    /// A JSON answer with an empty response.
    Empty,
    /// A JSON answer too short to be a summary.
    Short,
    /// Answers the first N generate calls it receives, then refuses (500):
    /// a server that goes away mid-run.
    FailAfter(usize),
    /// Too short an answer for daily nodes, a good one for the rest: a
    /// daily stays pending while its parents and ROOT are written.
    RefuseDaily,
    /// An Ollama before 0.5: a request with a `format` schema gets a 400;
    /// without one, a good Markdown answer.
    NoFormat,
    /// Well-formed answers about something else entirely.
    Ungrounded,
    /// Ungrounded answers for one part of a chunked node (its prompt
    /// says `(part N of`), good ones otherwise.
    RefusePart(usize),
    /// A tokenizer that counts a token every 2 bytes, and Ollama's silent
    /// cut: a prompt over `num_ctx` is answered (HTTP 200) as if whole,
    /// reporting `num_ctx`/2 + 2 prompt tokens. Records what it cut.
    CutPrompts,
    /// The same prompt too long, refused with an HTTP 400 (some models).
    RefuseLongPrompts,
    /// The first N answers run into `num_predict` (`eval_count` equal to it).
    CutAnswers(usize),
    /// Embeddings of twice the usual dimensions: the same model name
    /// replaced by another model.
    WideEmbed,
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub body: serde_json::Value,
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    mode: Mutex<Option<Mode>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// Generate calls received so far.
    generated: AtomicUsize,
    /// Embed calls received so far.
    embeds: AtomicUsize,
    /// Prompts cut (or refused) as longer than `num_ctx`.
    cut: AtomicUsize,
    stop: AtomicBool,
}

/// A running fake server.
pub struct FakeOllama {
    pub url: String,
    shared: Arc<Shared>,
    port: u16,
}

impl FakeOllama {
    /// Starts a server answering in `mode`.
    pub fn start(mode: Mode) -> FakeOllama {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        *shared.mode.lock().unwrap() = Some(mode);
        let s = shared.clone();
        std::thread::spawn(move || {
            // Bounded: stops on drop, and after 10,000 connections at most.
            for stream in listener.incoming().take(10_000) {
                if s.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let s = s.clone();
                std::thread::spawn(move || handle(stream, &s));
            }
        });
        FakeOllama {
            url: format!("http://127.0.0.1:{port}"),
            shared,
            port,
        }
    }

    /// Changes how later requests are answered.
    pub fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = Some(mode);
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// The `/api/generate` requests so far.
    pub fn generates(&self) -> Vec<serde_json::Value> {
        self.received()
            .into_iter()
            .filter(|r| r.path == "/api/generate")
            .map(|r| r.body)
            .collect()
    }

    /// The `/api/embed` requests so far.
    pub fn embeds(&self) -> Vec<serde_json::Value> {
        self.received()
            .into_iter()
            .filter(|r| r.path == "/api/embed")
            .map(|r| r.body)
            .collect()
    }

    /// Texts embedded so far, over all `/api/embed` requests.
    pub fn embedded_inputs(&self) -> usize {
        self.embeds()
            .iter()
            .map(|b| b["input"].as_array().map_or(1, Vec::len))
            .sum()
    }

    /// Prompts cut (or refused as too long) so far.
    pub fn cut(&self) -> usize {
        self.shared.cut.load(Ordering::SeqCst)
    }

    /// Most requests handled at the same moment.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for FakeOllama {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A port nothing listens on.
pub fn closed_port_url() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}

fn handle(mut stream: TcpStream, s: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() || request_line.is_empty() {
        return;
    }
    let mut content_length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            content_length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; content_length];
    let _ = reader.read_exact(&mut body);
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
    s.received.lock().unwrap().push(Received {
        path: path.clone(),
        body: json.clone(),
    });

    let now = s.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    s.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let mode = s.mode.lock().unwrap().clone().unwrap_or(Mode::Ok);
    let (status, reply) = match path.as_str() {
        "/api/version" => (200, r#"{"version":"0.0.0-fake"}"#.to_string()),
        "/api/tags" => (
            200,
            r#"{"models":[{"name":"fake:latest","modified_at":"2026-01-01T00:00:00Z","size":1}]}"#
                .to_string(),
        ),
        "/api/embed" => {
            let served = s.embeds.fetch_add(1, Ordering::SeqCst);
            match mode {
                Mode::NotFound => (404, super::fake_embed::not_found(&json)),
                Mode::FailAfter(n) if served >= n => {
                    (500, r#"{"error":"server is shutting down"}"#.to_string())
                }
                Mode::Slow(d) => {
                    std::thread::sleep(d);
                    (200, super::fake_embed::answer(&json))
                }
                Mode::WideEmbed => (200, super::fake_embed::answer_wide(&json)),
                _ => (200, super::fake_embed::answer(&json)),
            }
        }
        "/api/generate" => {
            let served = s.generated.fetch_add(1, Ordering::SeqCst);
            match mode {
                Mode::FailAfter(n) if served >= n => {
                    (500, r#"{"error":"server is shutting down"}"#.to_string())
                }
                Mode::FailAfter(_) => generate(&json, &Mode::Ok),
                Mode::CutPrompts | Mode::RefuseLongPrompts => {
                    let (status, reply, cut) = cut_prompt(&json, &mode);
                    if cut {
                        s.cut.fetch_add(1, Ordering::SeqCst);
                    }
                    (status, reply)
                }
                Mode::CutAnswers(n) => {
                    let (status, reply) = generate(&json, &Mode::Ok);
                    if served < n {
                        (
                            status,
                            with_eval_count(&reply, &json["options"]["num_predict"]),
                        )
                    } else {
                        (status, reply)
                    }
                }
                _ => generate(&json, &mode),
            }
        }
        _ => (404, r#"{"error":"not found"}"#.to_string()),
    };
    s.in_flight.fetch_sub(1, Ordering::SeqCst);
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        _ => "Internal Server Error",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
        reply.len()
    );
    let _ = stream.flush();
}

fn generate(req: &serde_json::Value, mode: &Mode) -> (u16, String) {
    let model = req["model"].as_str().unwrap_or("").to_string();
    let prompt = req["prompt"].as_str().unwrap_or("");
    let system = req["system"].as_str().unwrap_or("");
    let structured = req["format"].is_object();
    if *mode == Mode::NoFormat && structured {
        return (
            400,
            r#"{"error":"json: cannot unmarshal object into Go struct field GenerateRequest.format of type string"}"#.to_string(),
        );
    }
    let text = match mode {
        Mode::Ungrounded => ungrounded(structured),
        Mode::RefusePart(n) if prompt.contains(&format!("(part {n} of")) => ungrounded(structured),
        Mode::NotFound => {
            return (
                404,
                format!(r#"{{"error":"model \"{model}\" not found, try pulling it first"}}"#),
            );
        }
        Mode::Garbage => return (200, "this is { not json".to_string()),
        Mode::Empty => String::new(),
        Mode::Short => "Sure! Here is your summary.".to_string(),
        Mode::Slow(d) => {
            std::thread::sleep(*d);
            if structured {
                json_summary(prompt, system)
            } else {
                summary(prompt, system)
            }
        }
        Mode::RefuseDaily if system.contains("DAILY") => "Sure! Here is your summary.".to_string(),
        _ if structured => json_summary(prompt, system),
        _ => summary(prompt, system),
    };
    let reply = serde_json::json!({
        "model": model,
        "created_at": "2026-01-01T00:00:00Z",
        "response": text,
        "done": true,
        "prompt_eval_count": (prompt.len() + system.len()) / 4,
        "eval_count": text.len() / 4,
    });
    (200, reply.to_string())
}

/// [`Mode::CutPrompts`] and [`Mode::RefuseLongPrompts`]: a good answer
/// when the prompt fits (2 bytes a token), else Ollama's cut or a 400.
fn cut_prompt(req: &serde_json::Value, mode: &Mode) -> (u16, String, bool) {
    let num_ctx = req["options"]["num_ctx"].as_u64().unwrap_or(2048) as usize;
    let counted = (req["prompt"].as_str().unwrap_or("").len()
        + req["system"].as_str().unwrap_or("").len())
        / 2;
    let (status, reply) = generate(req, &Mode::Ok);
    if counted <= num_ctx {
        let mut v: serde_json::Value = serde_json::from_str(&reply).unwrap();
        v["prompt_eval_count"] = counted.into();
        return (status, v.to_string(), false);
    }
    if *mode == Mode::RefuseLongPrompts {
        let error = format!(
            r#"{{"error":"the input length exceeds the context length ({counted} > {num_ctx})"}}"#
        );
        return (400, error, true);
    }
    let mut v: serde_json::Value = serde_json::from_str(&reply).unwrap();
    v["prompt_eval_count"] = (num_ctx / 2 + 2).into();
    (status, v.to_string(), true)
}

fn with_eval_count(reply: &str, num_predict: &serde_json::Value) -> String {
    let mut v: serde_json::Value = serde_json::from_str(reply).unwrap();
    v["eval_count"] = num_predict.clone();
    v.to_string()
}

/// Every topic of the prompt: its `## ` headings and `- keyword [type]`
/// lines (a good summary names them), hipo's section names left out.
fn headings(prompt: &str) -> Vec<String> {
    const OWN: [&str; 8] = [
        "Topics",
        "Key Decisions",
        "Tasks Completed",
        "Lessons Learned",
        "Open Items",
        "Active Context",
        "Recent Patterns",
        "Historical Summary",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in prompt.lines() {
        let h = match (line.strip_prefix("## "), line.strip_prefix("- ")) {
            (Some(h), _) => h.trim(),
            (None, Some(b)) if b.contains(" [") && b.contains(']') => {
                &b[..b.find(']').unwrap_or(0) + 1]
            }
            _ => continue,
        };
        if !OWN.iter().any(|o| h.starts_with(o)) && !out.iter().any(|o| o == h) {
            out.push(h.to_string());
        }
    }
    // User and feedback items first: a good summary never drops them.
    let keep = |h: &String| h.contains("[user]") || h.contains("[feedback]");
    let (mut first, rest): (Vec<String>, Vec<String>) = out.into_iter().partition(keep);
    first.extend(rest.into_iter().take(4));
    first
}

fn ungrounded(structured: bool) -> String {
    const NONSENSE: &str = "The LeSanti decision was adopted by the International Society for Microbial Research (ISAMS)";
    if structured {
        return serde_json::json!({
            "topics": [{"keyword": "LeSanti decision", "type": "project", "details": "ISAMS adoption"}],
            "key_decisions": [NONSENSE],
            "tasks_completed": ["Reviewed the microbial research society guidelines"],
            "lessons_learned": ["International societies adopt decisions slowly"],
            "open_items": ["Await the ISAMS general assembly"],
            "active_context": [NONSENSE], "recent_patterns": [NONSENSE], "historical_summary": [NONSENSE],
        })
        .to_string();
    }
    format!(
        "## Topics\n- lesanti [project]: ISAMS\n## Key Decisions\n- {NONSENSE}\n## Tasks Completed\n- none\n## Lessons Learned\n- none\n## Open Items\n- none\n"
    )
}

/// The longest plain `- ` line of the prompt: a fact a summary would keep.
fn first_fact(prompt: &str) -> String {
    prompt
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter(|l| !l.contains(['`', '{', '}', '[', ']', '"']))
        .max_by_key(|l| l.len())
        .unwrap_or("the sources were read")
        .to_string()
}

/// The longest line of the prompt's sources: text a narrative would use.
fn first_line(prompt: &str) -> String {
    prompt
        .lines()
        .filter(|l| !l.starts_with("=====") && !l.starts_with("Today is"))
        .max_by_key(|l| l.len())
        .unwrap_or("")
        .trim_start_matches(['-', ' ', '#'])
        .to_string()
}

fn first_heading(prompt: &str) -> &str {
    prompt
        .lines()
        .find_map(|l| l.strip_prefix("## "))
        .or_else(|| prompt.lines().find_map(|l| l.strip_prefix("- ")))
        .unwrap_or("merged parts")
}

/// [`summary`] as the JSON a schema asks for: rendered by hipo, it reads
/// the same.
fn json_summary(prompt: &str, system: &str) -> String {
    let first = first_heading(prompt);
    let value = if system.contains("Write ROOT.md's narrative sections") {
        serde_json::json!({
            "active_context": [format!("fake model: current work on {first}")],
            "recent_patterns": headings(prompt),
            "historical_summary": [format!("fake history of {first}"), first_line(prompt)],
        })
    } else {
        let mut topics = vec![
            serde_json::json!({"keyword": "fake-summary", "type": "project", "details": first}),
        ];
        for h in headings(prompt).iter().filter(|h| h.as_str() != first) {
            topics.push(serde_json::json!({"keyword": h, "type": "project", "details": ""}));
        }
        serde_json::json!({
            "topics": topics,
            "key_decisions": [format!("decided things about {first}")],
            "tasks_completed": [],
            "lessons_learned": [first_fact(prompt)],
            "open_items": [format!("follow up on {first}")],
        })
    };
    value.to_string()
}

fn summary(prompt: &str, system: &str) -> String {
    let first = first_heading(prompt);
    if system.contains("Write ROOT.md's narrative sections") {
        return format!(
            "## Active Context\n- fake model: current work on {first}\n## Recent Patterns\n{}## Historical Summary\n- fake history of {first}\n- {}\n",
            headings(prompt)
                .iter()
                .map(|h| format!("- {h}\n"))
                .collect::<String>(),
            first_line(prompt)
        );
    }
    let more: String = headings(prompt)
        .iter()
        .filter(|h| h.as_str() != first)
        .map(|h| format!("- {h}\n"))
        .collect();
    format!(
        "## Topics\n- fake-summary [project]: {first}\n{more}## Key Decisions\n- decided things about {first}\n## Tasks Completed\n- none\n## Lessons Learned\n- {}\n## Open Items\n- follow up on {first}\n",
        first_fact(prompt)
    )
}
