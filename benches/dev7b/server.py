#!/usr/bin/env python3
"""A dev-set stand-in for a competent 7B model behind Ollama's API.

Not a test fake (those, in tests/common, each play one failure mode): this
one writes answers the way qwen2.5:7b or llama3.1:8b write them, from the
prompt hipo sends, so hipo's acceptance can be measured on them:

- good answers: titles paraphrased or renamed from the entry's substance,
  details reworded (synonyms, dates reformatted, labels dropped), user and
  feedback items kept but reworded, a decision restated word for word in
  its topic's details and again under Lessons Learned, filler sections
  (`None mentioned`, `N/A`, `No open items`, `Nothing noted`), Korean
  entries translated to English (names and numbers kept), chat-log chunks
  summarised from the user's lines and the assistant's named items;
- bad answers (--bad; --mixed: one first answer in two, the retry good,
  so every level is asked): an invented subject (a plausible summary of some
  other project) or, when the prompt holds user or feedback items, a good
  answer with all of them dropped.

Every answer is drawn deterministically from the prompt's hash and
--seed. Each call is logged (--log, JSON lines) with its node, its half
(A or B: by a hash of the node, so a day's chunks fall in one half), its
kind (part, merge, update, root), whether it was a retry (hipo re-asks a
refused answer once, with a note) and which answer was served. An answer
is judged refused when hipo asks the same prompt again with the note.

Usage: server.py --port 11600 [--bad] [--seed N] --log calls.jsonl
"""

import argparse
import hashlib
import json
import random
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RETRY = "Your previous answer was refused:"
ROOT_MARK = "Write ROOT.md's narrative sections"

SYN = {
    "decided": "chose", "decision": "choice", "decisions": "choices", "use": "adopt",
    "always": "consistently", "wants": "would like", "prefers": "likes",
    "fix": "patch", "fixed": "patched", "remove": "drop", "removed": "dropped",
    "shipped": "released", "ship": "release", "check": "verify", "checked": "verified",
    "failed": "broke", "failing": "breaking", "slow": "sluggish", "large": "big",
    "start": "begin", "started": "began", "finish": "complete", "finished": "completed",
    "because": "since", "before": "prior to", "after": "following", "issue": "problem",
    "asked": "requested", "show": "display", "shows": "displays", "write": "record",
    "wrote": "recorded", "quick": "fast", "help": "assist", "find": "locate",
    "upcoming": "future", "interested": "keen", "learn": "find out", "details": "info",
    "recommend": "suggest", "recommended": "suggested", "event": "occasion",
}
STOP = set("""a an the and or but of to in on at for with by from as is are was were be been
being it its this that these those i you he she we they my your our their me him her us them
do does did have has had not no so if then than too very can could would should will just about
into over under up down out off also only any all some such what which who whom when where why how
there here more most much many other each both few own same s t don now get got like really
let i'm it's i've i'd you're that's can't don't""".split())

KO = {
    "배포": "deployment", "일정": "schedule", "회의": "meeting", "새해": "New Year",
    "장애": "incident", "대응": "response", "온콜": "on-call", "회고": "retrospective",
    "무제": "untitled", "메모": "memo", "금요일": "Friday", "하지": "no", "않기로": "",
    "마지막": "last", "동결": "freeze", "기간": "period", "등록": "registered",
    "팀": "team", "캘린더에": "calendar", "정리": "plan", "인원이": "staff",
    "한국어로": "in Korean", "보고서를": "reports", "선호함": "prefers",
}

CATEGORIES = ["Team availability", "Communication preference", "Working style", "Time zone convention",
              "Formatting preference", "Operational rule", "Review process", "Team change"]

OTHER_PROJECTS = [
    ("Kubernetes ingress upgrade", ["moved ingress-nginx to the 1.9 chart", "canary pods for the payments namespace",
                                    "rolled the TLS certificates through cert-manager"]),
    ("Terraform state migration", ["split the monolithic state into per-team workspaces",
                                   "locked state in DynamoDB", "imported the legacy VPC peering"]),
    ("Marketing site redesign", ["new hero banner with the spring campaign", "A/B test of the pricing page copy",
                                 "moved the blog to a headless CMS"]),
    ("Quarterly budget review", ["travel spend over plan by twelve percent", "hardware refresh pushed to autumn",
                                 "vendor contracts renegotiated with the cloud reseller"]),
]


def words(text):
    return re.findall(r"[\w']+", text.lower())


def content(text):
    return [w.strip("'") for w in words(text) if len(w.strip("'")) >= 3 and w not in STOP]


def reword(rng, text, keep=0.85):
    """Synonyms, a dropped word here and there, dates sometimes reformatted."""
    out = []
    for tok in text.split():
        bare = tok.strip(".,;:()").lower()
        if bare in SYN and rng.random() < 0.6:
            tok = SYN[bare]
        elif bare in STOP and rng.random() > keep:
            continue
        out.append(tok)
    s = " ".join(out)
    if rng.random() < 0.3:
        s = re.sub(r"\b(\d{4})-(\d{2})-(\d{2})\b",
                   lambda m: f"{['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'][int(m.group(2)) - 1]} {int(m.group(3))}, {m.group(1)}", s)
    return s


def translate(text):
    """Korean words to English by a small dictionary; names and numbers kept."""
    def tr(tok):
        if re.search(r"[\uac00-\ud7a3]", tok):
            digits = re.match(r"^(\d+)", tok)
            if digits:  # 22일 → 22, 12월 → 12: numbers survive
                return digits.group(1)
            stem = re.sub(r"(부터|까지|님은|은|는|이|가|을|를|에|로|의|함)$", "", tok)
            return KO.get(tok, KO.get(stem, ""))
        return tok
    return re.sub(r"\s+", " ", " ".join(tr(t) for t in text.split())).strip()


def is_korean(text):
    return len(re.findall(r"[\uac00-\ud7a3]", text)) * 2 > len(re.findall(r"\w", text))


def sources_of(prompt):
    i = prompt.find("\n=====")
    return prompt[i:] if i >= 0 else prompt


def entries(src):
    """(title, type, [lines]) of `## Title [type]` entries, summary topic
    lines, and chat sessions (type `chat`)."""
    out, cur, section = [], None, None
    for line in src.splitlines():
        t = line.strip()
        if t.startswith("====="):
            cur, section = None, None
            continue
        m = re.match(r"^## (.+?)(?: \[(user|feedback|project|reference)\])?$", t)
        if m and not t.startswith("###"):
            title = m.group(1)
            if title in ("Topics", "Key Decisions", "Tasks Completed", "Lessons Learned", "Open Items"):
                section, cur = title, None
                continue
            section = None
            kind = m.group(2) or ("chat" if title.lower().startswith("session") else "project")
            cur = [title, kind, []]
            out.append(cur)
            continue
        if section == "Topics":
            m = re.match(r"^- (.+?) \[(user|feedback|project|reference)\](?::\s*(.*))?$", t)
            if m:
                out.append([m.group(1), m.group(2), [m.group(3) or ""]])
            continue
        if section:
            if t.startswith("- ") and t != "- none":
                out.append(["", section, [t[2:]]])
            continue
        if cur is None and section is None and t and not t.startswith("#"):
            # A chunk that starts inside a session: the chat goes on.
            cur = ["(continued)", "chat", []]
            out.append(cur)
        if cur is not None and t:
            cur[2].append(t)
    return out


def label_free(line):
    return re.sub(r"^-?\s*(request|analysis|decisions?|outcome|references?|rule|why|how-to-apply|note)s?:\s*", "", line.strip("- "))


def filler(rng):
    return [rng.choice(["None mentioned", "N/A", "No open items", "Nothing noted", "none", "None."])]


def chat_topic(rng, title, lines):
    user = [l[5:].strip() for l in lines if l.startswith("User:")]
    bold = re.findall(r"\*\*([^*]{4,60})\*\*", "\n".join(lines))
    said = [l for l in lines if not l.startswith(("User:", "Session Date"))]
    text = " ".join(user) or " ".join(said[:8])
    freq = {}
    for w in content(text):
        if len(w) >= 4:
            freq[w] = freq.get(w, 0) + 1
    top = sorted(freq, key=lambda w: (-freq[w], w))[:3]
    keyword = " ".join(top) or "conversation"
    personal = re.search(r"\b(I'm|I am|my|I prefer|I like|I've|I love)\b", text)
    lead = user[0] if user else re.sub(r"^(Assistant:|[*#\d.\s]+)", "", said[0] if said else "").strip()
    first = reword(rng, lead[:160].rsplit(" ", 1)[0]) if lead else ""
    names = [b.strip(": ") for b in bold[:4]]
    details = "; ".join([d for d in [first] + names if d])
    topics = [{"keyword": keyword, "type": "user" if personal else "project", "details": details}]
    decisions = [reword(rng, u[:140]) for u in user[1:2] if re.search(r"\b(I think|I'd like|I'll|let's|I want)\b", u)]
    tasks = [f"assistant listed {', '.join(names[:3])}"] if names else []
    opens = [f"follow up on {names[0]}"] if names and rng.random() < 0.5 else []
    return topics, decisions, tasks, opens


def good_node(rng, prompt):
    topics, decisions, tasks, lessons, opens = [], [], [], [], []
    for title, kind, lines in entries(sources_of(prompt)):
        if kind == "chat":
            t, d, k, o = chat_topic(rng, title, lines)
            topics += t; decisions += d; tasks += k; opens += o
            continue
        if kind in ("Key Decisions", "Tasks Completed", "Lessons Learned", "Open Items"):
            target = {"Key Decisions": decisions, "Tasks Completed": tasks,
                      "Lessons Learned": lessons, "Open Items": opens}[kind]
            if rng.random() < 0.8:
                target.append(reword(rng, lines[0]))
            continue
        body = [l for l in lines if not l.startswith("```") and not re.match(r"^\d+: ", l)]
        code = len(body) < len(lines)
        text_lines = [label_free(l) for l in body if label_free(l)]
        if is_korean(title + " ".join(text_lines)) and rng.random() < 0.6:
            title = translate(title) or title
            text_lines = [translate(l) for l in text_lines]
        r = rng.random()
        if r < 0.4 or not text_lines:
            keyword = title.lower()
        elif r < 0.7:
            keyword = " ".join([w for w in title.split() if w.lower() not in STOP][:3])
        else:
            cw = [w for w in content(" ".join(text_lines)) if len(w) >= 4]
            keyword = " ".join(cw[:2]) or title
        details_src = text_lines[:3]
        if kind in ("user", "feedback"):
            details_src = text_lines  # kept whole, reworded
        details = "; ".join(reword(rng, l) for l in details_src)
        if kind in ("user", "feedback") and rng.random() < 0.3:
            # Renamed to a category, details said in the model's own words:
            # the item survives only in some of its words.
            keyword = rng.choice(CATEGORIES)
            details = "; ".join(reword(rng, l, keep=0.5) for l in details_src)
            details = " ".join(w for w in details.split() if rng.random() < 0.85)
        if code:
            details += "; stack trace in the log"
        topics.append({"keyword": keyword, "type": kind if kind in ("user", "feedback", "project", "reference") else "project",
                       "details": details})
        for l in body:
            ll = l.lower()
            if ll.startswith("- decisions:") or "decided" in ll:
                d = label_free(l)
                decisions.append(d)
                if rng.random() < 0.35:
                    topics[-1]["details"] = d  # restated word for word
                if rng.random() < 0.25:
                    lessons.append(d)  # said again under Lessons Learned
            elif ll.startswith("- outcome:") or "done" in ll or "shipped" in ll:
                tasks.append(reword(rng, f"{title}: {label_free(l)}"))
            elif any(k in ll for k in ("todo", "next:", "open:", "pending", "follow")):
                opens.append(reword(rng, label_free(l)))
            elif "lesson" in ll or "learned" in ll:
                lessons.append(reword(rng, label_free(l)))
    return {
        "topics": topics,
        "key_decisions": decisions or filler(rng),
        "tasks_completed": tasks or filler(rng),
        "lessons_learned": lessons or filler(rng),
        "open_items": opens or filler(rng),
    }


def bad_node(rng, prompt):
    good = good_node(rng, prompt)
    kept = [t for t in good["topics"] if t["type"] not in ("user", "feedback")]
    # Only items the sources tag can be dropped (a chat log tags none).
    tagged = any(k in ("user", "feedback") for _, k, _ in entries(sources_of(prompt)))
    if tagged and rng.random() < 0.5:
        dropped = [t for t in good["topics"] if t not in kept]
        gone = set(w for t in dropped for w in content(t["keyword"] + " " + t["details"]))
        for key in ("key_decisions", "tasks_completed", "lessons_learned", "open_items"):
            # What the dropped items said goes with them.
            good[key] = [x for x in good[key] if len(set(content(x)) & gone) < 2] or filler(rng)
        good["topics"] = kept or [{"keyword": "misc", "type": "project", "details": "various updates"}]
        return good, "dropped-user-items"
    name, facts = rng.choice(OTHER_PROJECTS)
    return {
        "topics": [{"keyword": name, "type": "project", "details": "; ".join(facts)}],
        "key_decisions": [facts[0]],
        "tasks_completed": [facts[1]],
        "lessons_learned": ["plan migrations a sprint ahead"],
        "open_items": [facts[2]],
    }, "invented-subject"


def good_root(rng, prompt):
    src = sources_of(prompt)
    if "\n=====" not in src:
        src = "\n===== merged =====\n" + src
    months, pieces = {}, re.split(r"\n===== (.+?) =====\n", src)
    topics = []
    for i in range(1, len(pieces) - 1, 2):
        path, body = pieces[i], pieces[i + 1]
        m = re.search(r"(\d{4}-\d{2})", path)
        ts = re.findall(r"^- (.+?) \[(user|feedback|project|reference)\](?::\s*(.*))?$", body, re.M)
        topics += ts
        if m and ts:
            months.setdefault(m.group(1), []).extend(t[0] for t in ts)
    recent = topics[-4:] or [("recent work", "project", "")]
    prefs = [t for t in topics if t[1] in ("user", "feedback")][-4:]
    return {
        "active_context": [reword(rng, f"{t[0]}: {t[2][:100]}") for t in recent],
        "recent_patterns": [reword(rng, f"{t[0]} ({t[1]}): {t[2][:100]}") for t in prefs]
        or ["None noted"],
        "historical_summary": [f"{m}: {', '.join(dict.fromkeys(ks))[:160]}" for m, ks in sorted(months.items())]
        or ["Nothing noted"],
    }


def bad_root(rng, prompt):
    name, facts = rng.choice(OTHER_PROJECTS)
    return {"active_context": [f"{name}: {facts[0]}"], "recent_patterns": [facts[1]],
            "historical_summary": [f"2024-05: {facts[2]}"]}, "invented-subject"


def render_text(obj):
    if "active_context" in obj:
        return "".join(f"## {h}\n" + "".join(f"- {x}\n" for x in obj[k])
                       for h, k in [("Active Context", "active_context"), ("Recent Patterns", "recent_patterns"),
                                    ("Historical Summary", "historical_summary")])
    out = "## Topics\n" + "".join(f"- {t['keyword']} [{t['type']}]: {t['details']}\n" for t in obj["topics"])
    for h, k in [("Key Decisions", "key_decisions"), ("Tasks Completed", "tasks_completed"),
                 ("Lessons Learned", "lessons_learned"), ("Open Items", "open_items")]:
        out += f"## {h}\n" + "".join(f"- {x}\n" for x in obj[k])
    return out


class State:
    bad = False
    seed = 0
    log = None
    full = False
    mixed = False


def answer(req):
    prompt, system = req.get("prompt", ""), req.get("system", "")
    retry = RETRY in prompt
    base = "\n".join(l for l in prompt.split("\n") if not l.startswith(RETRY))
    node = (prompt.split("\n", 1)[0] if prompt.startswith("Node:") else "ROOT")
    node = re.sub(r" \(part .*", "", node)
    half = "AB"[int(hashlib.sha1(node.encode()).hexdigest(), 16) % 2]
    kind = "root" if ROOT_MARK in system else "merge" if "partial summaries" in prompt else \
        "update" if "current summary" in prompt else "part"
    h = int(hashlib.sha1(f"{State.seed}:{retry}:{base}".encode()).hexdigest(), 16)
    rng = random.Random(h)
    # --mixed: a first answer is bad one time in two (by its hash), the
    # retry good, so every level of the tree is asked.
    bad = State.bad or (State.mixed and not retry and h % 2 == 1)
    if kind == "root":
        obj, served = (bad_root(rng, base) if bad else (good_root(rng, base), "good"))
    else:
        obj, served = (bad_node(rng, base) if bad else (good_node(rng, base), "good"))
    render = (lambda o: json.dumps(o, ensure_ascii=False)) if isinstance(req.get("format"), dict) else render_text
    text = render(obj)
    # A model writes within num_predict: a long merge says less per topic.
    budget = int((req.get("options") or {}).get("num_predict") or 1 << 30) * 3
    while len(text) > budget and "topics" in obj:
        longest = max(obj["topics"], key=lambda t: len(t["details"]), default=None)
        if longest is None or len(longest["details"]) < 40:
            # Project threads go first; user and feedback items are kept.
            projects = [t for t in obj["topics"] if t["type"] not in ("user", "feedback")]
            if not projects:
                break
            obj["topics"].remove(projects[0])
        else:
            # Said shorter: its names and numbers first, as a model does.
            toks = longest["details"].split()
            key = [t for t in toks if t[:1].isupper() or any(ch.isdigit() for ch in t)]
            rest = [t for t in toks if t not in key and t.lower() not in STOP]
            shorter = " ".join((key + rest)[: max(4, len(toks) // 2)])
            if len(shorter) >= len(longest["details"]):
                shorter = longest["details"][:39]
            longest["details"] = shorter
        text = render(obj)
    if State.log:
        with open(State.log, "a") as f:
            f.write(json.dumps({"node": node, "half": half, "kind": kind, "retry": retry, "served": served,
                                "base": hashlib.sha1(base.encode()).hexdigest()[:16],
                                **({"prompt": prompt, "answer": text} if State.full else {})},
                               ensure_ascii=False) + "\n")
    return text


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/api/version":
            return self.reply(200, {"version": "0.9.0-dev7b"})
        if self.path == "/api/tags":
            return self.reply(200, {"models": [{"name": "dev7b:latest", "modified_at": "2026-01-01T00:00:00Z", "size": 1}]})
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(n) or b"{}")
        if self.path != "/api/generate":
            return self.reply(404, {"error": "not found"})
        text = answer(req)
        prompt_len = len(req.get("prompt", "")) + len(req.get("system", ""))
        self.reply(200, {"model": req.get("model"), "created_at": "2026-01-01T00:00:00Z", "response": text,
                         "done": True, "prompt_eval_count": prompt_len // 4, "eval_count": len(text) // 4})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=11600)
    ap.add_argument("--bad", action="store_true")
    ap.add_argument("--mixed", action="store_true", help="first answers bad one time in two, retries good")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--full", action="store_true", help="log each prompt and answer too")
    a = ap.parse_args()
    State.bad, State.seed, State.log, State.full, State.mixed = a.bad, a.seed, a.log, a.full, a.mixed
    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


if __name__ == "__main__":
    sys.exit(main())
