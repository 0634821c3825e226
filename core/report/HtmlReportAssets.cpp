#include "report/HtmlReportAssets.h"

namespace ptescope::report {

const std::string& htmlReportStyle() {
  static const std::string style = R"CSS(
:root { color-scheme: light; --ink: #1d2733; --muted: #5b6672; --line: #d5dbe1; --accent: #3b6ea5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); background: #f6f8fa; }
header { background: #fff; border-bottom: 1px solid var(--line); padding: 12px 24px; }
h1 { font-size: 20px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 0 0 8px; overflow-wrap: anywhere; }
h3 { font-size: 15px; margin: 18px 0 6px; }
nav a { color: var(--accent); text-decoration: none; overflow-wrap: anywhere; }
nav a:hover { text-decoration: underline; }
main { padding: 16px 24px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 14px 18px; margin-bottom: 18px; }
.note { color: var(--muted); margin: 4px 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 4px 0 8px; max-width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 10px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
thead th { background: #eef2f6; position: sticky; top: 0; }
table.sortable thead th { cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \25B2"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " \25BC"; font-size: 10px; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.facts th { background: none; width: 10em; }
tr.copy { cursor: pointer; }
tr.copy:hover, tr.copy.current { background: #fff2cc; }
tr.added td:first-child { color: #2b8a3e; font-weight: 600; }
tr.removed td:first-child { color: #c92a2a; font-weight: 600; }
tr.sev-error td:nth-child(2) { color: #c92a2a; font-weight: 600; }
tr.sev-warning td:nth-child(2) { color: #b35c00; }
code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; background: #f1f3f5; padding: 0 3px; overflow-wrap: anywhere; }
.tools { display: flex; gap: 6px; align-items: center; margin: 6px 0; }
.tools input.find { width: 22em; padding: 3px 6px; }
.tools button { min-width: 2.2em; }
.find-status { color: var(--muted); min-width: 6em; }
.graph { border: 1px solid var(--line); border-radius: 4px; height: 70vh; overflow: hidden; background: #fff; }
.graph svg { width: 100%; height: 100%; display: block; cursor: grab; touch-action: none; }
.graph svg.dragging { cursor: grabbing; }
.graph g.node.hit polygon, .graph g.node.hit path, .graph g.node.hit ellipse, .graph g.node.hit polyline { stroke: #e03131; stroke-width: 4px; }
.graph g.node.current polygon, .graph g.node.current path, .graph g.node.current ellipse, .graph g.node.current polyline { stroke: #d6336c; stroke-width: 7px; }
/* Long tables scroll in a box of their own, and the browser skips their
   layout while they are off screen (a 50k-instruction program has ~20k copies). */
.table-wrap { max-height: 60vh; overflow: auto; content-visibility: auto; contain-intrinsic-size: auto 60vh; }
.table-wrap table { margin: 0; }
details.copies > summary { cursor: pointer; margin: 4px 0; color: var(--muted); }
footer { color: var(--muted); padding: 8px 24px 24px; }
)CSS";
  return style;
}

const std::string& htmlReportScript() {
  static const std::string script = R"JS(
(function () {
  'use strict';
  var body = document.body;
  var violations = 0;
  document.addEventListener('securitypolicyviolation', function () {
    violations += 1;
    body.setAttribute('data-csp-violations', String(violations));
  });

  function viewBox(svg) {
    var v = svg.getAttribute('viewBox').split(/[\s,]+/).map(Number);
    return { x: v[0], y: v[1], w: v[2], h: v[3] };
  }
  function setViewBox(svg, b) {
    svg.setAttribute('viewBox', [b.x, b.y, b.w, b.h].map(function (n) { return n.toFixed(2); }).join(' '));
  }
  function svgPoint(svg, clientX, clientY) {
    var ctm = svg.getScreenCTM();
    var p = svg.createSVGPoint();
    p.x = clientX; p.y = clientY;
    return ctm ? p.matrixTransform(ctm.inverse()) : p;
  }
  function boxOf(svg, el) {
    var bb = el.getBBox();
    var outer = svg.getScreenCTM(), inner = el.getScreenCTM();
    if (!outer || !inner) return { x: bb.x, y: bb.y, w: bb.width, h: bb.height };
    var m = outer.inverse().multiply(inner);
    var p = svg.createSVGPoint();
    p.x = bb.x; p.y = bb.y;
    var a = p.matrixTransform(m);
    p.x = bb.x + bb.width; p.y = bb.y + bb.height;
    var b = p.matrixTransform(m);
    return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(b.x - a.x), h: Math.abs(b.y - a.y) };
  }

  // One graph: pan, zoom and Find.
  function Graph(section) {
    var self = this;
    this.section = section;
    this.holder = section.querySelector('.graph');
    this.svg = this.holder.querySelector('svg');
    this.input = section.querySelector('input.find');
    this.status = section.querySelector('.find-status');
    this.nodes = Array.prototype.slice.call(this.svg.querySelectorAll('g.node'));
    this.texts = null;
    this.matches = [];
    this.current = -1;
    this.full = viewBox(this.svg);
    this.initialView();

    var svg = this.svg;
    svg.addEventListener('wheel', function (e) {
      e.preventDefault();
      self.zoomAt(e.deltaY < 0 ? 1 / 1.2 : 1.2, svgPoint(svg, e.clientX, e.clientY));
    }, { passive: false });
    var drag = null;
    svg.addEventListener('pointerdown', function (e) {
      drag = { x: e.clientX, y: e.clientY, box: viewBox(svg), scale: self.unitsPerPixel() };
      svg.setPointerCapture(e.pointerId);
      svg.classList.add('dragging');
    });
    svg.addEventListener('pointermove', function (e) {
      if (!drag) return;
      setViewBox(svg, { x: drag.box.x - (e.clientX - drag.x) * drag.scale, y: drag.box.y - (e.clientY - drag.y) * drag.scale,
                        w: drag.box.w, h: drag.box.h });
    });
    function endDrag() { drag = null; svg.classList.remove('dragging'); }
    svg.addEventListener('pointerup', endDrag);
    svg.addEventListener('pointercancel', endDrag);
    section.querySelectorAll('button[data-zoom]').forEach(function (button) {
      button.addEventListener('click', function () {
        var kind = button.getAttribute('data-zoom');
        if (kind === 'fit') { setViewBox(svg, self.full); return; }
        var b = viewBox(svg);
        self.zoomAt(kind === 'in' ? 1 / 1.4 : 1.4, { x: b.x + b.w / 2, y: b.y + b.h / 2 });
      });
    });
    this.input.addEventListener('input', function () { self.find(self.input.value); });
    this.input.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') { e.preventDefault(); self.next(e.shiftKey ? -1 : 1); }
    });
  }
  Graph.prototype.unitsPerPixel = function () {
    var ctm = this.svg.getScreenCTM();
    return ctm && ctm.a ? 1 / ctm.a : 1;
  };
  // The whole graph when it fits at a readable size (never magnified past
  // 1.5); a bigger one starts at its top at a readable size.
  Graph.prototype.initialView = function () {
    var f = this.full, w = this.holder.clientWidth || 800, h = this.holder.clientHeight || 600;
    var s = Math.min(w / f.w, h / f.h);
    s = s >= 0.6 ? Math.min(s, 1.5) : 0.8;
    var vw = w / s, vh = h / s;
    setViewBox(this.svg, { x: vw >= f.w ? f.x + (f.w - vw) / 2 : f.x, y: vh >= f.h ? f.y + (f.h - vh) / 2 : f.y, w: vw, h: vh });
  };
  Graph.prototype.zoomAt = function (factor, p) {
    var b = viewBox(this.svg);
    setViewBox(this.svg, { x: p.x - (p.x - b.x) * factor, y: p.y - (p.y - b.y) * factor, w: b.w * factor, h: b.h * factor });
  };
  Graph.prototype.show = function (node) {
    var n = boxOf(this.svg, node), b = viewBox(this.svg);
    var w = Math.min(b.w, Math.max(600, n.w * 6)), h = b.h * w / b.w;
    setViewBox(this.svg, { x: n.x + n.w / 2 - w / 2, y: n.y + n.h / 2 - h / 2, w: w, h: h });
  };
  Graph.prototype.clear = function () {
    this.nodes.forEach(function (n) { n.classList.remove('hit', 'current'); });
    this.matches = [];
    this.current = -1;
  };
  // The words of each node: its texts and its tooltip.
  Graph.prototype.words = function () {
    if (this.texts) return this.texts;
    this.texts = this.nodes.map(function (n) {
      var parts = [];
      n.querySelectorAll('text').forEach(function (t) { parts.push(t.textContent); });
      var a = n.querySelector('a');
      if (a) parts.push(a.getAttributeNS('http://www.w3.org/1999/xlink', 'title') || '');
      return parts.join('\n').toLowerCase();
    });
    return this.texts;
  };
  // "#12" does not match "#120": a query ending in a digit ends at a non-digit.
  function contains(text, query) {
    var digit = /[0-9]$/.test(query);
    for (var at = text.indexOf(query); at >= 0; at = text.indexOf(query, at + 1)) {
      if (!digit || !/[0-9]/.test(text.charAt(at + query.length))) return true;
    }
    return false;
  }
  Graph.prototype.find = function (query) {
    this.clear();
    var q = query.trim().toLowerCase();
    if (!q) { this.status.textContent = ''; return 0; }
    var words = this.words(), self = this;
    this.nodes.forEach(function (n, i) {
      if (contains(words[i], q)) { n.classList.add('hit'); self.matches.push(n); }
    });
    if (this.matches.length === 0) { this.status.textContent = 'Not found'; return 0; }
    this.next(1);
    return this.matches.length;
  };
  Graph.prototype.next = function (step) {
    if (this.matches.length === 0) return;
    if (this.current >= 0) this.matches[this.current].classList.remove('current');
    this.current = (this.current + step + this.matches.length) % this.matches.length;
    var node = this.matches[this.current];
    node.classList.add('current');
    this.status.textContent = (this.current + 1) + ' of ' + this.matches.length;
    this.show(node);
  };
  Graph.prototype.reveal = function (node, label) {
    this.clear();
    node.classList.add('current');
    this.status.textContent = label;
    this.holder.scrollIntoView({ block: 'center' });
    this.show(node);
  };

  var graphs = {};
  document.querySelectorAll('section.method').forEach(function (section) {
    if (section.querySelector('.graph svg')) graphs[section.id] = new Graph(section);
  });

  // Sortable tables: a click on a header sorts by that column.
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var headers = table.querySelectorAll('thead th');
    headers.forEach(function (th, column) {
      th.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        headers.forEach(function (other) { other.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var numeric = th.getAttribute('data-type') === 'num';
        var tbody = table.tBodies[0];
        var rows = Array.prototype.slice.call(tbody.rows);
        var key = function (row) {
          var cell = row.cells[column];
          if (!cell) return '';
          return numeric ? Number(cell.getAttribute('data-v')) : cell.textContent;
        };
        var keyed = rows.map(function (row, i) { return { row: row, key: key(row), i: i }; });
        keyed.sort(function (a, b) {
          var c = numeric ? a.key - b.key : String(a.key).localeCompare(String(b.key));
          return (ascending ? c : -c) || a.i - b.i;
        });
        var fragment = document.createDocumentFragment();
        keyed.forEach(function (k) { fragment.appendChild(k.row); });
        tbody.appendChild(fragment);
      });
    });
  });

  // A click on a copy shows its node (or the collapsed group holding it).
  document.querySelectorAll('table.copies').forEach(function (table) {
    var graph = graphs[table.getAttribute('data-method')];
    table.tBodies[0].addEventListener('click', function (e) {
      var row = e.target.closest('tr.copy');
      if (!row) return;
      table.querySelectorAll('tr.current').forEach(function (r) { r.classList.remove('current'); });
      row.classList.add('current');
      var node = document.getElementById(row.getAttribute('data-node') || '');
      if (graph && node) graph.reveal(node, 'copy ' + row.cells[0].textContent);
    });
  });

  // "#copy=N" in the address: the copy at instruction N of the first method
  // with one, as if its row were clicked (a link to one copy).
  function revealCopy(instruction) {
    var rows = document.querySelectorAll('table.copies tr.copy');
    for (var i = 0; i < rows.length; i += 1) {
      if (rows[i].cells[0].getAttribute('data-v') !== instruction) continue;
      var details = rows[i].closest('details');
      if (details) details.open = true;
      rows[i].click();
      var shown = document.querySelector('.graph g.node.current');
      return shown ? shown.id : '';
    }
    return '';
  }

  var data = {};
  try { data = JSON.parse(document.getElementById('report-data').textContent); } catch (e) { data = {}; }
  var expected = (data.methods || []).reduce(function (sum, m) { return sum + m.nodes; }, 0);
  var drawn = document.querySelectorAll('.graph svg g.node').length;
  body.setAttribute('data-nodes', String(drawn));
  body.setAttribute('data-copy-rows', String(document.querySelectorAll('table.copies tbody tr').length));
  body.setAttribute('data-csp-violations', String(violations));
  if (location.hash.indexOf('#copy=') === 0) body.setAttribute('data-revealed', revealCopy(location.hash.slice(6)));
  if (location.hash.indexOf('#find=') === 0) {
    var first = graphs[Object.keys(graphs)[0]];
    var query = location.hash.slice(6);
    try { query = decodeURIComponent(query); } catch (e) { /* not percent-encoded: as typed */ }
    // As if typed into the graph's Find box: the box shows the query and the
    // first match is scrolled into sight (the graph may start below the fold).
    var found = 0;
    if (first) {
      first.input.value = query;
      found = first.find(query);
      if (found > 0) first.holder.scrollIntoView({ block: 'center' });
      var box = found > 0 ? first.matches[first.current].getBoundingClientRect() : null;
      body.setAttribute('data-find-box', first.input.value);
      body.setAttribute('data-find-in-view', box && box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight &&
                                             box.right <= window.innerWidth ? 'yes' : 'no');
    }
    body.setAttribute('data-find-matches', String(found));
  }
  // Milliseconds from the start of the navigation until here (tests/bench/bench_report.py).
  body.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  body.setAttribute('data-report', drawn === expected ? 'ready' : 'node-count-mismatch');
})();
)JS";
  return script;
}

}  // namespace ptescope::report
