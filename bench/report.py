"""The suite's one table (and the lever table under it), as Markdown so that
it can be pasted into docs/benchmarks.md as it is."""
import os
import platform


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.3g" % v if abs(v) < 100 else "%.0f" % v
    return str(v)


def _machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, Linux %s" % (model, os.cpu_count() or 0, platform.release())


def _status(ok):
    return {True: "met", False: "NOT met", None: ""}[ok]


def table_text(ctx, failed, secs):
    out = ["", "elffs benchmarks: %s; median of %d runs%s; %.0f s" %
           (_machine(), ctx.runs, " (quick mode)" if ctx.quick else "", secs), ""]
    out.append("| # | measurement | value | baseline | ratio | target | |")
    out.append("|---|---|---|---|---|---|---|")
    for r in ctx.rows:
        out.append("| %s | %s | %s %s | %s: %s %s | %s | %s | %s |" % (
            r["id"], r["what"] + (" (%s)" % r["note"] if r["note"] else ""),
            _fmt(r["value"]), r["unit"], r["baseline"], _fmt(r["base_value"]), r["unit"],
            _fmt(r["ratio"]), r["target"], _status(r["ok"])))
    if ctx.levers:
        out += ["", "| lever | configuration | value | against | ratio |",
                "|---|---|---|---|---|"]
        for r in ctx.levers:
            against = "%s: %s" % (r["base_config"], _fmt(r["base_value"])) \
                if r["base_config"] else "-"
            out.append("| %s | %s%s | %s %s | %s | %s |" % (
                r["lever"], r["config"], " (%s)" % r["note"] if r["note"] else "",
                _fmt(r["value"]), r["unit"], against, _fmt(r["ratio"])))
    if ctx.timings:
        out += ["", "group times: " + ", ".join("%s %.0f s" % t for t in ctx.timings)]
    for f in failed:
        out.append("FAILED group %s" % f)
    out.append("")
    return "\n".join(out)
