#!/usr/bin/env python3
"""Turns benches/scale.sh's results (JSON lines, one per history size) into
scale.json, a markdown table (scale.md) and an SVG plot (scale.svg).
Standard library only.

Usage: benches/scale_report.py results.jsonl OUT_DIR
"""
import json
import math
import sys

TARGETS = {"noop_ms": 50, "append_ms": 100, "search_p50_ms": 20}


def label(days):
    if days % 365 == 0:
        years = days // 365
        return f"{years} year" + ("s" if years > 1 else "")
    if days % 30 == 0 or days in (90, 91, 92):
        return f"{round(days / 30)} months"
    return f"{days} days"


def mib(kib):
    return kib / 1024


def table(rows):
    head = ["", *(f"{label(r['days'])} ({r['days']} days)" for r in rows)]
    lines = [
        ("raw logs", lambda r: f"{r['corpus_bytes'] / 1e6:.0f} MB"),
        ("full build (compact + index)", lambda r: f"{r['build_s']:.1f} s ({r['compact_build_s']:.1f} + {r['index_build_s']:.1f})"),
        ("full build peak RSS (compact / index)", lambda r: f"{mib(r['compact_build_kib']):.0f} / {mib(r['index_build_kib']):.0f} MiB"),
        ("no-op `compact` (median)", lambda r: f"{r['noop_ms']:.1f} ms"),
        ("no-op `compact` CPU (user + sys)", lambda r: f"{r['noop_cpu_ms']:.1f} ms"),
        ("no-op `compact` peak RSS", lambda r: f"{mib(r['noop_kib']):.0f} MiB"),
        ("`checkpoint` + `compact` (median)", lambda r: f"{r['append_ms']:.1f} ms"),
        ("`checkpoint` + `compact` CPU", lambda r: f"{r['append_cpu_ms']:.1f} ms"),
        ("`checkpoint` + `compact` peak RSS", lambda r: f"{mib(r['append_kib']):.0f} MiB"),
        ("`search` p50 / p99 (whole process)", lambda r: f"{r['search_p50_ms']:.1f} / {r['search_p99_ms']:.1f} ms"),
        ("`search` CPU", lambda r: f"{r['search_cpu_ms']:.1f} ms"),
        ("`search` peak RSS", lambda r: f"{mib(r['search_kib']):.0f} MiB"),
        ("index size (`.hipo/index` / `.hipo`)", lambda r: f"{r['index_bytes'] / 1e6:.0f} / {r['hipo_bytes'] / 1e6:.0f} MB"),
    ]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, f in lines:
        out.append("| " + " | ".join([name, *(f(r) for r in rows)]) + " |")
    return "\n".join(out) + "\n"


def svg(rows):
    """Two log-log panels: times (ms) and peak memory (MiB) against days."""
    w, h, pad = 420, 300, 55
    days = [r["days"] for r in rows]
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    def panel(x0, title, series, unit, targets):
        vals = [v for _, vs in series for v in vs if v > 0] + [t for _, t in targets]
        lo, hi = math.log10(min(vals) / 1.5), math.log10(max(vals) * 1.5)
        dlo, dhi = math.log10(min(days)) - 0.1, math.log10(max(days)) + 0.1
        px = lambda d: x0 + pad + (math.log10(d) - dlo) / (dhi - dlo) * (w - pad - 10)
        py = lambda v: 30 + (hi - math.log10(max(v, 1e-9))) / (hi - lo) * (h - 30 - pad)
        s = [f'<text x="{x0 + w / 2}" y="18" text-anchor="middle" font-weight="bold">{title}</text>']
        s.append(f'<rect x="{x0 + pad}" y="30" width="{w - pad - 10}" height="{h - 30 - pad}" fill="none" stroke="#999"/>')
        for e in range(math.floor(lo), math.ceil(hi) + 1):
            for m in (1, 2, 5):
                v = m * 10 ** e
                if lo <= math.log10(v) <= hi:
                    y = py(v)
                    s.append(f'<line x1="{x0 + pad}" x2="{x0 + w - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
                    s.append(f'<text x="{x0 + pad - 4}" y="{y + 4:.1f}" text-anchor="end" font-size="10">{v:g}</text>')
        for d in days:
            s.append(f'<text x="{px(d):.1f}" y="{h - pad + 16}" text-anchor="middle" font-size="10">{label(d)}</text>')
        s.append(f'<text x="{x0 + 12}" y="{(h - pad) / 2 + 15}" font-size="11" transform="rotate(-90 {x0 + 12} {(h - pad) / 2 + 15})" text-anchor="middle">{unit}</text>')
        for i, (name, vs) in enumerate(series):
            c = colors[i % len(colors)]
            pts = " ".join(f"{px(d):.1f},{py(v):.1f}" for d, v in zip(days, vs))
            s.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
            for d, v in zip(days, vs):
                s.append(f'<circle cx="{px(d):.1f}" cy="{py(v):.1f}" r="3" fill="{c}"/>')
            s.append(f'<text x="{x0 + pad + 8}" y="{h - pad + 32 + 13 * i}" font-size="11" fill="{c}">— {name}</text>')
        for name, t in targets:
            y = py(t)
            s.append(f'<line x1="{x0 + pad}" x2="{x0 + w - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#888" stroke-dasharray="4 3"/>')
            s.append(f'<text x="{x0 + w - 12}" y="{y - 3:.1f}" text-anchor="end" font-size="9" fill="#666">{name}</text>')
        return s

    times = [
        ("no-op compact", [r["noop_ms"] for r in rows]),
        ("checkpoint + compact", [r["append_ms"] for r in rows]),
        ("search p50", [r["search_p50_ms"] for r in rows]),
        ("search p99", [r["search_p99_ms"] for r in rows]),
        ("no-op compact CPU", [r["noop_cpu_ms"] for r in rows]),
        ("search CPU", [r["search_cpu_ms"] for r in rows]),
    ]
    mem = [
        ("full build (index)", [mib(r["index_build_kib"]) for r in rows]),
        ("full build (compact)", [mib(r["compact_build_kib"]) for r in rows]),
        ("no-op compact", [mib(r["noop_kib"]) for r in rows]),
        ("search", [mib(r["search_kib"]) for r in rows]),
    ]
    targets = [("no-op target 50 ms", 50), ("append target 100 ms", 100), ("search p50 target 20 ms", 20)]
    body = panel(0, "time per command", times, "milliseconds", targets)
    body += panel(w + 20, "peak memory", mem, "MiB (max RSS)", [])
    total_h = h + 70
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * w + 20}" height="{total_h}" '
        f'font-family="sans-serif" font-size="12">\n<rect width="100%" height="100%" fill="white"/>\n'
        + "\n".join(body)
        + "\n</svg>\n"
    )


def main():
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    rows.sort(key=lambda r: r["days"])
    out = sys.argv[2]
    with open(f"{out}/scale.json", "w") as f:
        json.dump(rows, f, indent=1)
    with open(f"{out}/scale.md", "w") as f:
        f.write(table(rows))
    with open(f"{out}/scale.svg", "w") as f:
        f.write(svg(rows))
    sys.stdout.write(table(rows))
    last = rows[-1]
    cpu = {"noop_ms": "noop_cpu_ms", "append_ms": "append_cpu_ms", "search_p50_ms": "search_cpu_ms"}
    for key, target in TARGETS.items():
        verdict = "meets" if last[key] < target else "MISSES"
        print(f"{label(last['days'])}: {key} {last[key]:.1f} ms wall ({last[cpu[key]]:.1f} ms CPU) {verdict} the {target} ms target")


if __name__ == "__main__":
    main()
