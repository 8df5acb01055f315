"""A trace (``viewer.Trace``, ``sokoban_viewer.SokobanTrace``) as one self-contained HTML page: a step slider,
the board (or the Sokoban level, drawn as XSB text) per step, the move list.

No network and no external file: CSS and script are inline. Every user text (board id, condition, the
model's moves) reaches the markup through ``html.escape``; the steps travel as JSON in a
``<script type="application/json">`` with every ``<`` written ``\\u003c``, so no text can close the element.
"""

from __future__ import annotations

import html
import json

from ..boundary.files import write_text
from .sokoban_viewer import SokobanTrace, sokoban_summary_lines
from .viewer import Replayed, Trace, step_note, summary_lines

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
"""

# the page's script, less %DRAW% (shows step s) and %MOVED% (what its move moved, for the label)
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

_SLIDING_DRAW = '''    for (var c = 0; c < cells.length; c++){
      var v = s.board[c];
      cells[c].textContent = v > 0 ? v : "";
      cells[c].className = "cell" + (v < 0 ? " block" : v === 0 ? " blank" : "") +
        (i > 0 && v === s.tile ? " moved" : "");
      cells[c].setAttribute("data-v", v);
    }
'''
_SCRIPT = _SCRIPT_FRAME.replace("%DRAW%", _SLIDING_DRAW).replace("%MOVED%", '''", tile " + s.tile''')
_SOKOBAN_CSS = ".level{font-size:1.6em;line-height:1.15;margin:.3em 0;padding:.3em .5em;background:#f4f4f4}\n"
_SOKOBAN_SCRIPT = _SCRIPT_FRAME.replace("%DRAW%", '''    document.getElementById("board").textContent = s.text;
''').replace("%MOVED%", '''(s.push ? ", push" : "")''')


def _json_script(value) -> str:
    """JSON for an inline ``<script>``: ``<`` as ``\\u003c`` (no ``</script>``, no ``<!--``), and the line
    separators JavaScript once refused."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _static_grid(board, cols: int) -> str:
    cells = []
    for v in board:
        kind = " block" if v < 0 else " blank" if v == 0 else ""
        cells.append(f'<div class="cell{kind}">{v if v > 0 else ""}</div>')
    return f'<div class="grid" style="grid-template-columns:repeat({cols},2.6em)">{"".join(cells)}</div>'


def _move_items(trace: Replayed, moved) -> str:
    closest, items = trace.closest.number, []
    for step in trace.steps[1:]:
        marks = (" closest" if step.number == closest else "") + (" revisit" if step.revisit_of is not None else "")
        title = f"move {step.number}: {step.move}{moved(step)}, h {step.h}"
        if step.revisit_of is not None:
            title += f", revisits step {step.revisit_of}"
        items.append(f'<li class="{marks.strip()}" title="{html.escape(title)}">{html.escape(step.move)}</li>')
    bad = trace.illegal
    if bad is not None and bad.kind != "format":
        items.append(f'<li class="bad" title="{html.escape(f"move {bad.number}: {bad.reason}")}">'
                     f'{html.escape(bad.move)}</li>')
        items += [f'<li class="rest">{html.escape(move)}</li>' for move in trace.moves[bad.number:]]
    return "".join(items)


def trace_page(trace: Trace | SokobanTrace) -> str:
    """The page's text (see the module docstring): a sliding-puzzle board or a Sokoban level."""
    if isinstance(trace, SokobanTrace):
        return _sokoban_page(trace)
    steps = [{"n": s.number, "move": s.move, "tile": s.tile, "h": s.h, "board": list(s.board),
              "note": step_note(trace, s)} for s in trace.steps]
    boards = ['<div class="boards"><div><b>Board</b>',
              f'<div id="board" class="grid" style="grid-template-columns:repeat({trace.cols},2.6em)">'
              + "".join('<div class="cell"></div>' for _ in trace.steps[0].board) + "</div></div>",
              f"<div><b>Goal</b>{_static_grid(trace.goal, trace.cols)}</div></div>"]
    return _page(trace, summary_lines(trace), boards, {"cols": trace.cols, "steps": steps},
                 lambda step: f", tile {step.tile}", "yellow: the tile just moved", _SCRIPT, "")


def _sokoban_page(trace: SokobanTrace) -> str:
    steps = [{"n": s.number, "move": s.move, "push": s.pushed >= 0, "h": s.h, "text": trace.text(s),
              "note": step_note(trace, s)} for s in trace.steps]
    boards = ['<div class="boards"><div><b>Level</b>', '<pre id="board" class="level"></pre></div></div>']
    return _page(trace, sokoban_summary_lines(trace), boards, {"steps": steps},
                 lambda step: ", push" if step.pushed >= 0 else "",
                 "@ the player (+ on a goal), $ a box (* on a goal), . a goal, # a wall", _SOKOBAN_SCRIPT,
                 _SOKOBAN_CSS)


def _page(trace: Replayed, summary_lines_: list[str], boards: list[str], data: dict, moved, first_legend: str,
          script: str, css: str) -> str:
    title = f"fastspe: {trace.board_id} · {trace.condition} · trial {trace.trial}"
    summary = "".join(f"<li>{html.escape(line)}</li>" for line in summary_lines_)
    last = len(trace.steps) - 1
    bad = trace.illegal
    illegal = "" if bad is None else bad.reason if bad.kind == "format" else \
        f"move {bad.number} ({bad.move}): {bad.reason}"
    data = {**data, "illegal": illegal}
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}{css}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>", f"<ul>{summary}</ul>",
        *boards,
        '<div class="controls"><button id="prev" type="button">&larr; prev</button>',
        f'<input id="step" type="range" min="0" max="{last}" value="0" aria-label="step">',
        '<button id="next" type="button">next &rarr;</button></div>',
        '<p id="step-label" aria-live="polite"></p>',
        f'<h2>Moves ({len(trace.moves)})</h2><ol id="moves">{_move_items(trace, moved)}</ol>',
        f'<p class="legend"><span>{html.escape(first_legend)}</span><span>blue: the current move</span>'
        "<span>red: the first illegal move</span><span>green bar: closest to the goal</span>"
        "<span>wavy underline: a revisited state</span>"
        "<span>grey: not played (after the first illegal move)</span></p>",
        f'<script type="application/json" id="trace-data">{_json_script(data)}</script>',
        f"<script>{script}</script>", "</body></html>\n"])


def write_trace_page(trace: Trace | SokobanTrace, path) -> None:
    """Write ``trace_page(trace)`` to ``path`` atomically."""
    write_text(trace_page(trace), path)
