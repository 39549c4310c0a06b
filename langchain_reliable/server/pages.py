"""The playgrounds: one page per route, its result rendered with `render_html`.

`/verify/playground/` and `/reliable-rag/playground/` are small pages of their own
(no external asset, so they work offline): a form for the route's input, the policy
settings with the preset's values as placeholders, example inputs, and a Run button.
A run calls the route's own `invoke` (every check of the API applies: the key, the
policy floor, the input contract), then `playground/render`, which turns the input
and the graph's output into the readable result (`playground.verify_view`,
`playground.rag_view`) with its `html`: the answer, each claim marked by its verdict.
Nothing is validated before Run is pressed; a refused request shows its reason.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ValidationError

from langchain_reliable.policy import PRESETS, Policy
from langchain_reliable.server.floor import PolicyFloor

PAGE_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


class RenderRequest(BaseModel):
    """Body of `playground/render`: a route's input and the output `invoke` gave for it."""

    input: Any
    output: Any


def preset_values(policy: Policy) -> dict[str, Any]:
    """The settings a policy stands for, as the playground's placeholders show them.

    Example:
        >>> preset_values(PRESETS["balanced"])["filter_at"]
        'MEDIUM'

    """
    return {
        "high_threshold": policy.high_threshold,
        "medium_threshold": policy.medium_threshold,
        "return_at": policy.return_at,
        "filter_at": policy.filter_at or "refuse",
    }


def mount_playground(
    app: FastAPI,
    path: str,
    *,
    title: str,
    kind: str,
    floor: PolicyFloor,
    serving: dict[str, Any],
    examples: list[dict[str, Any]],
    view: Callable[[Any, Any], BaseModel],
    dependencies: list[Any] | None = None,
) -> None:
    """Serve `path`/playground/ (the page) and `path`/playground/render (its result)."""
    settings = {
        "presets": {name: preset_values(p) for name, p in PRESETS.items()},
        "server": {**preset_values(floor.policy), "name": floor.policy.name},
        "locked": floor.locked,
        "max_retries": floor.max_retries,
    }
    page_data = {
        "kind": kind,
        "invoke": f"{path}/invoke",
        "render": f"{path}/playground/render",
        "settings": settings,
        "examples": examples,
    }

    @app.get(f"{path}/playground/", include_in_schema=False, dependencies=dependencies)
    async def playground(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = _PAGE.format(
            title=html.escape(title),
            serving=html.escape(serving["description"]),
            mode=html.escape(serving["mode"]),
            home=html.escape(f"{root}/"),
            form=_VERIFY_FORM if kind == "verify" else _RAG_FORM,
            data=_script_json({**page_data, "root": root}),
            style=_STYLE,
            script=_SCRIPT,
        )
        return HTMLResponse(page, headers={"Content-Security-Policy": PAGE_CSP})

    @app.post(f"{path}/playground/render", include_in_schema=False, dependencies=dependencies)
    async def render(body: RenderRequest) -> dict[str, Any]:
        try:
            return view(body.input, body.output).model_dump()
        except (ValidationError, ValueError, TypeError) as exc:
            raise HTTPException(status_code=422, detail=f"cannot render: {exc}") from None


def _script_json(data: Any) -> str:
    """`data` as JSON safe inside a `<script>` element."""
    return json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_VERIFY_FORM = """
<label for="answer">Answer to check</label>
<textarea id="answer" rows="4"
 placeholder="The text made elsewhere, e.g. by your chat model"></textarea>
<fieldset id="passages"><legend>Passages the answer must rest on</legend></fieldset>
<button type="button" id="add-passage">Add a passage</button>
<label for="question">Question (optional)</label>
<input id="question" type="text" placeholder="The question the answer responds to">
"""
_RAG_FORM = """
<label for="question">Question</label>
<input id="question" type="text" placeholder="Ask the knowledge base">
"""

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title><link rel="icon" href="data:,">
<style>{style}</style></head>
<body><p><a href="{home}">langchain-reliable</a></p>
<h1>{title}</h1>
<p id="serving" class="serving {mode}"><strong>Serving:</strong> {serving}</p>
<section id="examples-section"><h2>Examples</h2><div id="examples"></div></section>
<form id="run-form" novalidate>
{form}
<details id="settings" open><summary>Policy settings (empty: the preset's value)</summary>
<p id="settings-note"></p>
<label for="policy">Policy</label><select id="policy"></select>
<label for="high_threshold">High threshold</label>
<input id="high_threshold" type="number" min="0" max="1" step="0.01">
<label for="medium_threshold">Medium threshold</label>
<input id="medium_threshold" type="number" min="0" max="1" step="0.01">
<label for="return_at">Return at</label><select id="return_at"></select>
<label for="filter_at">Filter at</label><select id="filter_at"></select>
<label for="max_retries">Max retries</label><input id="max_retries" type="number" min="0" step="1">
</details>
<p><button type="submit" id="run">Run</button> <span id="status" role="status"></span></p>
</form>
<section id="result" hidden><h2>Result</h2>
<p id="headline"></p>
<p id="reason"></p>
<h3>What the user receives</h3><div id="shown"></div>
<h3>The answer, claim by claim</h3>
<p class="legend"><mark class="supported">supported</mark>
<del class="unsupported">unsupported</del> <del class="contradicted">contradicted</del>
<del class="uncertain">uncertain</del></p>
<div id="rendered"></div>
<p id="flags"></p>
</section>
<script type="application/json" id="page-data">{data}</script>
<script>{script}</script>
</body></html>
"""

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1d2433}
label{display:block;font-weight:600;margin-top:.8rem}
textarea,input,select{width:100%;box-sizing:border-box;font:inherit;padding:.35rem;
border:1px solid #b8c0cc;border-radius:6px}
input::placeholder,textarea::placeholder{color:#7a8494}
button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #4b5b75;
background:#fff;cursor:pointer;margin-top:.5rem}
button#run{background:#1f4fd1;color:#fff;border-color:#1f4fd1}
.passage{display:flex;gap:.5rem;align-items:flex-start;margin-top:.4rem}
.passage textarea{flex:1}
fieldset{border:none;padding:0;margin:.8rem 0 0}
legend{font-weight:600}
details{margin-top:1rem;border:1px solid #d5dae2;border-radius:8px;padding:.5rem .8rem}
summary{cursor:pointer;font-weight:600}
.serving{padding:.6rem .8rem;border-radius:8px;background:#eef3ff;border:1px solid #c5d3f5}
.serving.demo{background:#fff6e0;border-color:#f0d48a}
#examples button{margin-right:.4rem}
.error{color:#a11b1b}
.badge{display:inline-block;padding:.1rem .6rem;border-radius:999px;font-weight:700;color:#fff}
.badge.return{background:#1d7a3a}.badge.filter{background:#b86e00}.badge.refuse{background:#a11b1b}
#shown{white-space:pre-wrap;border:1px solid #d5dae2;border-radius:8px;padding:.6rem .8rem;
background:#fff}
.reliability-report p{white-space:pre-wrap}
mark.supported{background:#d4f3dc;color:#0f4d22;padding:0 .1rem;border-radius:3px}
del.unsupported{background:#ffe7cc;color:#7a3b00;text-decoration-color:#b86e00}
del.contradicted{background:#ffd6d6;color:#7d1010;text-decoration-color:#a11b1b;
text-decoration-thickness:2px}
del.uncertain{background:#ececec;color:#4a4a4a;text-decoration-style:dashed}
table{border-collapse:collapse;width:100%;margin-top:.6rem}
td,th{border-bottom:1px solid #e3e6eb;padding:.3rem;text-align:left;vertical-align:top}
tr.supported td:nth-child(2){color:#1d7a3a;font-weight:700}
tr.unsupported td:nth-child(2){color:#b86e00;font-weight:700}
tr.contradicted td:nth-child(2){color:#a11b1b;font-weight:700}
tr.uncertain td:nth-child(2){color:#5a5a5a;font-weight:700}
.summary{color:#4b5b75}
"""

_SCRIPT = r"""
const data = JSON.parse(document.getElementById("page-data").textContent);
const $ = (id) => document.getElementById(id);
const LEVELS = ["HIGH", "MEDIUM", "LOW"];

function option(select, value, text) {
  const o = document.createElement("option"); o.value = value; o.textContent = text;
  select.appendChild(o);
}
function addPassage(text) {
  const row = document.createElement("div"); row.className = "passage";
  const area = document.createElement("textarea"); area.rows = 2; area.value = text || "";
  const n = $("passages").querySelectorAll("textarea").length + 1;
  area.placeholder = "Passage " + n; area.setAttribute("aria-label", "Passage " + n);
  const remove = document.createElement("button"); remove.type = "button";
  remove.textContent = "Remove"; remove.onclick = () => row.remove();
  row.append(area, remove); $("passages").appendChild(row);
}
function chosen() {
  const name = $("policy").value;
  return name ? data.settings.presets[name] : data.settings.server;
}
function placeholders() {
  const p = chosen(); const from = $("policy").value || "the server's";
  $("high_threshold").placeholder = p.high_threshold + " (" + from + ")";
  $("medium_threshold").placeholder = p.medium_threshold + " (" + from + ")";
  $("return_at").options[0].textContent = p.return_at + " (" + from + ")";
  $("filter_at").options[0].textContent = p.filter_at + " (" + from + ")";
  $("max_retries").placeholder = "at most " + data.settings.max_retries + " (the server's)";
}
function setUp() {
  const s = data.settings;
  const own = s.server.name in s.presets;
  if (!own) option($("policy"), "", "the server's (" + s.server.name + ")");
  for (const name of Object.keys(s.presets)) option($("policy"), name, name);
  if (own) $("policy").value = s.server.name;
  option($("return_at"), "", ""); LEVELS.forEach((l) => option($("return_at"), l, l));
  option($("filter_at"), "", "");
  [...LEVELS, "refuse"].forEach((l) => option($("filter_at"), l, l));
  $("policy").addEventListener("change", placeholders);
  placeholders();
  if (s.locked) {
    $("settings-note").textContent = "The policy is locked on this server: settings are refused.";
    for (const el of $("settings").querySelectorAll("input, select")) el.disabled = true;
  } else {
    $("settings-note").textContent = "Clients may only tighten the server's policy "
      + "(" + s.server.name + "); a looser setting is refused (403).";
  }
  if (data.kind === "verify") {
    addPassage(); addPassage();
    $("add-passage").addEventListener("click", () => addPassage());
  }
  for (const example of data.examples) {
    const b = document.createElement("button"); b.type = "button"; b.textContent = example.label;
    b.addEventListener("click", () => fill(example.input));
    $("examples").appendChild(b);
  }
  if (!data.examples.length) $("examples-section").hidden = true;
  const asked = new URLSearchParams(location.search).get("question");
  if (asked) $("question").value = asked;
}
function fill(input) {
  if (data.kind === "verify") {
    $("answer").value = input.answer || "";
    $("passages").querySelectorAll(".passage").forEach((row) => row.remove());
    (input.passages || []).forEach((p) => addPassage(p));
  }
  $("question").value = input.question || "";
  $("status").textContent = "";
}
function collect() {
  if (data.kind === "rag") return {question: $("question").value};
  const passages = [...$("passages").querySelectorAll("textarea")]
    .map((a) => a.value).filter((t) => t.trim());
  const input = {answer: $("answer").value, passages: passages};
  if ($("question").value.trim()) input.question = $("question").value;
  return input;
}
function configurable() {
  const out = {};
  const policy = $("policy").value;
  if (policy && policy !== data.settings.server.name) out.policy = policy;
  for (const id of ["high_threshold", "medium_threshold", "max_retries"]) {
    if ($(id).value !== "") out[id] = Number($(id).value);
  }
  for (const id of ["return_at", "filter_at"]) if ($(id).value) out[id] = $(id).value;
  return out;
}
function missing(input) {
  if (data.kind === "rag") return input.question.trim() ? "" : "Type a question first.";
  if (!input.answer.trim()) return "Type the answer to check first.";
  if (!input.passages.length) return "Give at least one passage.";
  return "";
}
async function post(url, body) {
  const response = await fetch(data.root + url, {method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = payload.detail;
    const text = typeof detail === "string" ? detail
      : Array.isArray(detail) ? detail.map((d) => d.msg || JSON.stringify(d)).join("; ")
      : JSON.stringify(payload);
    throw new Error("refused (" + response.status + "): " + text);
  }
  return payload;
}
function show(result) {
  const badge = document.createElement("span");
  badge.className = "badge " + result.decision; badge.textContent = result.decision;
  $("headline").replaceChildren(badge, document.createTextNode(
    "  " + (result.passed ? "passed" : "not passed") + " · score " + result.score.toFixed(2)
    + " · level " + result.level));
  $("reason").textContent = result.reason;
  $("shown").textContent = result.answer;
  $("rendered").innerHTML = result.html;  // render_html: every piece of text escaped
  $("flags").textContent = result.flags.length ? "Flags: " + result.flags.join(", ") : "";
  $("result").hidden = false;
}
$("run-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = collect();
  const problem = missing(input);
  $("status").className = problem ? "error" : "";
  if (problem) { $("status").textContent = problem; return; }
  $("status").textContent = "Running…"; $("run").disabled = true;
  try {
    const body = {input: input, config: {configurable: configurable()}};
    const output = (await post(data.invoke, body)).output;
    show(await post(data.render, {input: input, output: output}));
    $("status").textContent = "Done.";
  } catch (error) {
    $("status").className = "error"; $("status").textContent = error.message;
  } finally {
    $("run").disabled = false;
  }
});
setUp();
"""
