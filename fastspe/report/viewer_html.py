"""A trace (``report.trace.Trace``, any domain's) as one self-contained HTML page: a step slider, the state per step
as the domain draws it (``Trace.page``: a grid of tiles, a Sokoban level as XSB text, ...), the move list.

No network and no external file: CSS and script are inline. Every user text (board id, condition, the
model's moves and its answer's text) reaches the markup through ``html.escape``; the steps travel as JSON in a
``<script type="application/json">`` with every ``<`` written ``\\u003c``, so no text can close the element.
"""

from __future__ import annotations

import html
import json

from .._text import html_text
from ..boundary.files import write_text
from .answer import answer_html
from .trace import Trace

_CSS = """
body{font-family:sans-serif;max-width:60em;margin:1.5em auto;padding:0 1em;line-height:1.4;color:#222}
.boards{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}
.grid{display:grid;gap:3px;margin:.3em 0}
.cell{width:2.6em;height:2.6em;display:flex;align-items:center;justify-content:center;font-weight:bold;
 background:#e8eef7;border:1px solid #9ab;border-radius:4px;font-variant-numeric:tabular-nums}
.cell.blank{background:#fff;border-style:dashed}.cell.block{background:#444;border-color:#444;color:#444}
.cell.moved{background:#ffd54a;border-color:#b58900}
.controls{margin:1em 0;display:flex;gap:.6em;align-items:center}
.controls input[type=range]{flex:1}
#moves{display:flex;flex-wrap:wrap;gap:2px;padding:0;list-style:none;font-family:monospace}
#moves li{padding:.1em .35em;border:1px solid #ccc;border-radius:3px;cursor:pointer}
#moves li.cur{background:#1f5fbf;color:#fff}#moves li.bad{border-color:#c00;color:#c00}
#moves li.bad.cur{background:#c00;color:#fff}#moves li.rest{color:#aaa;border-style:dotted;cursor:default}
#moves li.closest{box-shadow:inset 0 -3px #2a2}#moves li.revisit{text-decoration:underline wavy #a60}
.legend span{margin-right:1.2em}
.answer{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;border:1px solid #ddd;padding:.6em}
"""

# the page's script, less %DRAW% (shows step s: the domain's ``TracePage.draw``) and %MOVED% (what its move moved, for
# the label: ``TracePage.moved``)
_SCRIPT_FRAME = """
(function(){
  var data = JSON.parse(document.getElementById("trace-data").textContent);
  var slider = document.getElementById("step"), cells = document.querySelectorAll("#board .cell");
  var items = document.querySelectorAll("#moves li"), label = document.getElementById("step-label");
  function show(i){
    i = Math.max(0, Math.min(data.steps.length - 1, i));
    var s = data.steps[i];
    slider.value = i;
%DRAW%    for (var m = 0; m < items.length; m++){
      items[m].classList.toggle("cur", m + 1 === i);
    }
    label.textContent = "step " + i + " of " + (data.steps.length - 1) + (i > 0 ? " · move " + s.move +
      %MOVED% : " · start") + " · h = " + s.h + (s.note ? " · " + s.note : "") +
      (i === data.steps.length - 1 && data.illegal ? " · next: " + data.illegal : "");
    document.body.setAttribute("data-step", i);
  }
  slider.addEventListener("input", function(){ show(parseInt(slider.value, 10)); });
  document.getElementById("prev").addEventListener("click", function(){ show(parseInt(slider.value, 10) - 1); });
  document.getElementById("next").addEventListener("click", function(){ show(parseInt(slider.value, 10) + 1); });
  for (var m = 0; m < data.steps.length - 1; m++){
    (function(n){ items[n].addEventListener("click", function(){ show(n + 1); }); })(m);
  }
  document.addEventListener("keydown", function(e){
    if (e.key === "ArrowLeft" || e.key === "ArrowRight" || e.key === "Home" || e.key === "End"){
      if (e.target === slider) return;  // the slider moves itself
      var i = parseInt(slider.value, 10);
      show(e.key === "ArrowLeft" ? i - 1 : e.key === "ArrowRight" ? i + 1 :
           e.key === "Home" ? 0 : data.steps.length - 1);
      e.preventDefault();
    }
  });
  show(0);
})();
"""


def _json_script(value) -> str:
    """JSON for an inline ``<script>``: ``<`` as ``\\u003c`` (no ``</script>``, no ``<!--``), and the line
    separators JavaScript once refused."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _move_items(trace: Trace) -> str:
    closest, items = trace.closest.number, []
    for step in trace.steps[1:]:
        marks = (" closest" if step.number == closest else "") + (" revisit" if step.revisit_of is not None else "")
        title = f"move {step.number}: {step.move}{trace.moved_label(step)}, h {step.h}"
        if step.revisit_of is not None:
            title += f", revisits step {step.revisit_of}"
        mark, more = trace.move_mark(step)  # the domain's own (Sokoban: the first dead move)
        marks, title = marks + (f" {mark}" if mark else ""), title + more
        items.append(f'<li class="{marks.strip()}" title="{html.escape(title)}">{html.escape(step.move)}</li>')
    bad = trace.illegal
    if bad is not None and bad.kind != "format":
        items.append(
            f'<li class="bad" title="{html.escape(f"move {bad.number}: {bad.reason}")}">{html.escape(bad.move)}</li>'
        )
        items += [f'<li class="rest">{html.escape(move)}</li>' for move in trace.moves[bad.number :]]
    return "".join(items)


def trace_page(trace: Trace, answer: str | None = None) -> str:
    """The page's text (see the module docstring); ``answer``: the model's text as received, shown below the moves
    (``answer.answer_html``), or None when it is not known."""
    part = trace.page()
    title = f"fastspe: {trace.board_id} · {trace.condition} · trial {trace.trial}"
    summary = "".join(f"<li>{html_text(line)}</li>" for line in trace.summary_lines())
    last = len(trace.steps) - 1
    bad = trace.illegal
    illegal = (
        "" if bad is None else bad.reason if bad.kind == "format" else f"move {bad.number} ({bad.move}): {bad.reason}"
    )
    data = {**part.data, "steps": part.steps, "illegal": illegal}
    script = _SCRIPT_FRAME.replace("%DRAW%", part.draw).replace("%MOVED%", part.moved)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width,initial-scale=1">',
            f"<title>{html_text(title)}</title><style>{_CSS}{part.css}</style></head><body>",
            f"<h1>{html_text(title)}</h1>",
            f"<ul>{summary}</ul>",
            *part.stage,
            '<div class="controls"><button id="prev" type="button">&larr; prev</button>',
            f'<input id="step" type="range" min="0" max="{last}" value="0" aria-label="step">',
            '<button id="next" type="button">next &rarr;</button></div>',
            '<p id="step-label" aria-live="polite"></p>',
            f'<h2>Moves ({len(trace.moves)})</h2><ol id="moves">{_move_items(trace)}</ol>',
            f'<p class="legend"><span>{html.escape(part.legend)}</span><span>blue: the current move</span>'
            "<span>red: the first illegal move</span><span>green bar: closest to the goal</span>"
            "<span>wavy underline: a revisited state</span>"
            "<span>grey: not played (after the first illegal move)</span></p>",
            *([] if answer is None else [answer_html(answer)]),
            f'<script type="application/json" id="trace-data">{_json_script(data)}</script>',
            f"<script>{script}</script>",
            "</body></html>\n",
        ]
    )


def write_trace_page(trace: Trace, path, answer: str | None = None) -> None:
    """Write ``trace_page(trace, answer)`` to ``path`` atomically."""
    write_text(trace_page(trace, answer), path)
