/* gradcli html viewer: details on click, hover, search, pan and zoom, and an event stepper.
   Plain JavaScript, no dependencies, nothing fetched: the data is the JSON block in the page. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("gradcli-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var svg = $("graph"), viewport = $("viewport"), canvas = $("canvas");
  var details = $("details"), stepText = $("step-text"), range = $("step-range");
  var prevBtn = $("step-prev"), nextBtn = $("step-next"), search = $("search");
  var searchCount = $("search-count"), zoomLevel = $("zoom-level"), sourceList = $("source");

  // -- the drawn elements ------------------------------------------------------------------------
  var els = {};  // element id -> <g>
  svg.querySelectorAll("g.el, g.edge").forEach(function (g) { els[g.id] = g; });
  var info = function (id) { return D.elements[id] || ["", null, null]; };
  var original = function (id) { return D.refs[id] || id; };
  var inEdges = {}, outEdges = {}, refsOf = {};
  function push(map, key, value) { (map[key] || (map[key] = [])).push(value); }
  Object.keys(D.refs).forEach(function (r) { push(refsOf, D.refs[r], r); });
  D.edges.forEach(function (e) {
    var s = original(e[1]), t = original(e[2]);
    push(outEdges, s, { edge: e[0], other: t, via: e[1] });
    push(inEdges, t, { edge: e[0], other: s, via: e[1] });
  });
  function nodeData(id) {
    var i = info(id);
    if (i[0] === "output") return D.nodes.out;
    return i[1] === null ? null : D.nodes[String(i[1])];
  }
  // the element the details panel is about: an op ellipse stands for its result's box
  function mainOf(id) {
    id = original(id);
    var i = info(id);
    if (i[0] === "op" && els["t" + i[1]]) return "t" + i[1];
    return id;
  }
  // when each element appears (the record that made it), for the stepper's forward phase
  var birth = {};
  Object.keys(D.elements).forEach(function (id) {
    var d = nodeData(original(id));
    birth[id] = d && d.birth !== undefined && d.birth !== null ? d.birth : -1;
  });
  // the script lines of the drawn nodes, for the source panel
  var byLine = {};
  Object.keys(D.elements).forEach(function (id) {
    var i = info(id);
    if (i[0] !== "tensor" && i[0] !== "grad_fn") return;
    var d = nodeData(id);
    if (d && d.line) push(byLine, d.line, id);
  });

  // -- small DOM helpers ---------------------------------------------------------------------------
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") el.textContent = attrs[k];
      else if (k === "cls") el.className = attrs[k];
      else if (k === "onclick") el.addEventListener("click", attrs[k]);
      else el.setAttribute(k, attrs[k]);
    });
    for (var a = 2; a < arguments.length; a++) {
      var c = arguments[a];
      if (c === null || c === undefined || c === false) continue;
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return el;
  }
  function label(id) {
    var i = info(original(id)), d = nodeData(original(id));
    if (i[0] === "tensor" || i[0] === "context") return d && d.name ? d.name : "#" + i[1];
    if (i[0] === "grad_fn") return d.name + (d.tensor ? " [" + d.tensor + "]" : "");
    return i[2] || id;
  }
  function link(id) {
    return h("button", { cls: "link", onclick: function () { select(id, { center: true }); } },
      label(id));
  }
  function srcLine(line) {
    if (!line) return null;
    var text = D.source[line - 1];
    return h("span", null, "line " + line, text !== undefined ?
      h("code", { cls: "srcline" }, text.trim()) : null);
  }

  // -- selection and the details panel ----------------------------------------------------------
  var active = null;
  function select(id, opts) {
    opts = opts || {};
    if (active && els[active]) els[active].classList.remove("active");
    active = id === null ? null : mainOf(id);
    if (active && els[active]) {
      els[active].classList.add("active");
      if (opts.center) centerOn(els[active], opts.zoom);
    }
    showDetails(active);
    var d = active ? nodeData(active) : null;
    markLine(opts.line || (d ? d.line : null));
  }
  function value(text, grad) {
    return text === null || text === undefined ? h("span", { cls: "none" }, "None") :
      h("pre", { cls: "value" + (grad ? " grad" : "") }, text);
  }
  function dOutput(name) {  /* --wrt: the gradient of the output, as gradcli grad computes it */
    return h("span", { title: "computed as gradcli grad computes it (torch.autograd.grad); " +
      ".grad is not changed" }, "d" + (D.output || "output") + "/d" + name);
  }
  function gradNone(d) {
    if (!d.requires_grad) return "None — does not require grad";
    if (!d.is_leaf && !d.retains_grad) return "None — not a leaf (call retain_grad() to keep it)";
    return "None — no backward reached it";
  }
  function savedList(saved) {
    if (!saved || !saved.length) return h("span", { cls: "none" }, "nothing");
    var box = h("div");
    saved.forEach(function (s) {
      var what = s.freed ? " (freed)" : s.value !== null ? " = " + s.value :
        s.tensor ? " → " + s.tensor : "";
      box.appendChild(h("span", { cls: "chip" + (s.freed ? " freed" : ""),
        title: s.freed ? "freed by a backward() without retain_graph=True" : "kept" }, s.name + what));
    });
    return box;
  }
  function props(rows) {
    var dl = h("dl", { cls: "props" });
    rows.forEach(function (r) { if (r) { dl.appendChild(h("dt", null, r[0])); dl.appendChild(h("dd", null, r[1])); } });
    return dl;
  }
  function links(ids) {
    if (!ids.length) return h("span", { cls: "none" }, "none");
    var box = h("span");
    ids.forEach(function (id) { box.appendChild(link(id)); box.appendChild(document.createTextNode(" ")); });
    return box;
  }
  function neighbours(id, map) {
    var out = [];
    (map[id] || []).forEach(function (e) {
      var o = e.other, k = info(o)[0];
      if (k === "op") (map[o] || []).forEach(function (f) { out.push(f.other); });
      else if (k === "tensor" || k === "grad_fn" || k === "context" || k === "output") out.push(o);
    });
    return out.filter(function (x, i) { return out.indexOf(x) === i && x !== id; });
  }
  function members(d) {
    if (!d.members) return null;
    var box = h("div", { cls: "members-box" }), table = h("table", { cls: "members" });
    var shown = 0;
    function more(n) {
      d.members.slice(shown, shown + n).forEach(function (m, k) {
        table.appendChild(h("tr", null, h("td", null, "#" + (shown + k + 1)),
          h("td", null, m[1] || "node " + m[0]), h("td", { cls: "mono" }, m[3] === null ? "" : m[3])));
      });
      shown = Math.min(d.members.length, shown + n);
    }
    more(100);
    box.appendChild(table);
    if (shown < d.members.length) {
      var btn = h("button", { cls: "link", onclick: function () { more(d.members.length); btn.remove(); } },
        "show all " + d.members.length);
      box.appendChild(btn);
    }
    return h("div", null, h("h3", { cls: "sub" }, "Iterations"), box);
  }
  function showDetails(id) {
    details.textContent = "";
    if (!id) {
      details.appendChild(h("p", { cls: "hint" }, "Click a node to see its values, gradient, " +
        "saved tensors and script line. Hover to see its inputs (blue) and outputs (teal). " +
        "Drag to pan, scroll to zoom, ← → to step."));
      notes.forEach(function (n) { details.appendChild(h("p", { cls: "hint" }, n)); });
      return;
    }
    var i = info(id), d = nodeData(id), kind = i[0];
    if (!d) return;
    var badges = h("div", { cls: "badges" });
    function badge(text, cls) { badges.appendChild(h("span", { cls: "badge " + (cls || "") }, text)); }
    if (d.members) badge("×" + d.members.length, "count");
    if (kind === "tensor" || kind === "context") {
      if (d.output) badge("output", "output");
      if (d.is_leaf) badge("leaf", d.requires_grad ? "leaf" : "");
      if (d.requires_grad) badge("requires_grad");
      if (d.retains_grad) badge("retains_grad");
      if (kind === "context") badge("outside the scope");
      details.appendChild(h("h2", null, d.name || "#" + d.id, h("span", { cls: "sub" }, "node " + d.id)));
      details.appendChild(badges);
      details.appendChild(props([
        ["op", d.op ? d.op + (d.inplace ? "_ (in place)" : "") : h("span", { cls: "none" }, "leaf")],
        d.layer ? ["layer", d.layer] : null,
        ["grad_fn", d.grad_fn || h("span", { cls: "none" }, "None")],
        ["shape", d.shape], ["dtype", d.dtype],
        ["value", value(d.value)],
        d.tangent != null ? ["tangent", h("pre", { cls: "value tangent" }, d.tangent)] : null,
        ["grad", d.grad === null ? h("span", { cls: "none" }, gradNone(d)) : value(d.grad, true)],
        d.d_output != null ? [dOutput(d.name || "#" + d.id), value(d.d_output, true)] : null,
        d.op ? ["saved", savedList(d.saved)] : null,
        ["line", srcLine(d.line) || h("span", { cls: "none" }, "unknown")],
        ["inputs", links(neighbours(id, inEdges))],
        ["used by", links(neighbours(id, outEdges))]
      ]));
    } else if (kind === "grad_fn" || kind === "variable") {
      var v = d.variable;
      details.appendChild(h("h2", null, kind === "variable" ? (d.variable_name || "leaf") : d.name,
        h("span", { cls: "sub" }, kind === "variable" ? "leaf of " + d.name : "node " + d.id)));
      if (v && v.requires_grad) badge("leaf", "leaf");
      details.appendChild(badges);
      details.appendChild(props([
        kind === "grad_fn" ? ["grad_fn", d.name] : null,
        d.layer ? ["layer", d.layer] : null,
        d.tensor ? ["tensor", d.tensor] : null,
        v ? ["variable", d.variable_name || "(unnamed)"] : null,
        v ? ["shape", v.shape] : null, v ? ["dtype", v.dtype] : null,
        v ? ["value", value(v.value)] : null,
        v ? ["grad", v.grad === null ? h("span", { cls: "none" }, "None") : value(v.grad, true)] : null,
        d.d_output != null ? [dOutput(d.variable_name || d.tensor || "·"), value(d.d_output, true)] : null,
        ["saved", savedList(d.saved)],
        ["line", srcLine(d.line) || h("span", { cls: "none" }, "unknown")],
        ["next", links(neighbours(mainOf(id), inEdges))],
        ["feeds", links(neighbours(mainOf(id), outEdges))]
      ]));
    } else if (kind === "saved") {
      var s = (d.saved || []).filter(function (x) { return x.name === i[2]; })[0] || {};
      details.appendChild(h("h2", null, s.name || "saved", h("span", { cls: "sub" }, "saved by " + d.name)));
      details.appendChild(props([
        ["state", s.freed ? "freed by a backward() without retain_graph=True" : "kept"],
        ["tensor", s.tensor || h("span", { cls: "none" }, "(unnamed)")],
        ["shape", s.shape ? "(" + s.shape.join(", ") + (s.shape.length === 1 ? ",)" : ")") : "?"],
        ["node", link("f" + d.id)]
      ]));
    } else if (kind === "output") {
      var t = d.tensor;
      badge("output", "output");
      details.appendChild(h("h2", null, d.name || "output"));
      details.appendChild(badges);
      details.appendChild(props([["grad_fn", t.grad_fn || "None"], ["shape", t.shape],
        ["dtype", t.dtype], ["value", value(t.value)],
        ["grad", t.grad === null ? h("span", { cls: "none" }, "None") : value(t.grad, true)]]));
    }
    var m = members(d);
    if (m) details.appendChild(m);
  }

  // -- the script's error, if it failed ---------------------------------------------------------
  var notes = [];
  if (D.error) {
    var box = $("error");
    box.appendChild(h("b", null, D.error.type + (D.error.line ? " on line " + D.error.line : "")));
    box.appendChild(h("div", null, D.error.message));
    if (D.error.line && D.source[D.error.line - 1] !== undefined)
      box.appendChild(h("code", { cls: "srcline" }, D.source[D.error.line - 1].trim()));
    if (D.error.hint) box.appendChild(h("div", { cls: "hint" }, "hint: " + D.error.hint));
    box.hidden = false;
  }

  // -- hover: inputs and outputs ---------------------------------------------------------------
  var lit = [];
  function light(id, cls) { var g = els[id]; if (g) { g.classList.add(cls); lit.push([g, cls]); } }
  function unlight() {
    lit.forEach(function (p) { p[0].classList.remove(p[1]); });
    lit = []; svg.classList.remove("hovering");
  }
  function walk(id, map, cls, hops) {
    (map[id] || []).forEach(function (e) {
      light(e.edge, cls); light(e.other, cls);
      // an edge's drawn source may be a reference tag: of the neighbour, or of this node
      if (e.via !== e.other && e.via !== id) light(e.via, D.refs[e.via] === e.other ? cls : "hl");
      if (hops > 0 && info(e.other)[0] === "op") walk(e.other, map, cls, hops - 1);
    });
  }
  function hover(id) {
    unlight();
    if (!id) return;
    id = original(id);
    if (dimOnHover) svg.classList.add("hovering");
    light(id, "hl");
    (refsOf[id] || []).forEach(function (r) { light(r, "hl"); });
    walk(id, inEdges, "hl-in", 1);
    walk(id, outEdges, "hl-out", 1);
  }
  // fading the rest restyles every element: worth it on small graphs only (frame time)
  var dimOnHover = Object.keys(els).length < 3000;
  var hovered = null;
  svg.addEventListener("pointerover", function (e) {
    if (drag && drag.moved) return;
    var g = e.target.closest("g.el");
    var id = g ? g.id : null;
    if (id !== hovered) { hovered = id; hover(id); }
  });
  svg.addEventListener("pointerleave", function () { hovered = null; unlight(); });

  // -- pan and zoom: one CSS transform on the canvas -------------------------------------------
  // NOTE: no will-change: without a GPU, Chromium re-rasterises a promoted layer of a big
  // graph on every frame (about 1 s a frame at 2,000 nodes); unpromoted it paints only what
  // is visible (16 ms frames, measured by bench/bench_html.py)
  var W = parseFloat(svg.getAttribute("width")) || 1, H = parseFloat(svg.getAttribute("height")) || 1;
  var tx = 0, ty = 0, k = 1, kmin = 0.02, kmax = 8;
  function apply() {
    canvas.style.transform = "translate(" + tx + "px," + ty + "px) scale(" + k + ")";
    zoomLevel.textContent = (k < 0.1 ? (k * 100).toFixed(1) : Math.round(k * 100)) + "%";
  }
  function zoomAt(f, cx, cy) {
    var nk = Math.min(kmax, Math.max(kmin, k * f));
    tx = cx - (cx - tx) * nk / k; ty = cy - (cy - ty) * nk / k; k = nk;
    apply();
  }
  function fit() {
    var vw = viewport.clientWidth, vh = viewport.clientHeight;
    if (!vw || !vh) return false;  // not laid out yet (a notebook's iframe): see placed()
    var f = Math.min(vw / W, vh / H) * 0.96;
    kmin = Math.min(0.02, f / 2);
    k = Math.min(1.5, f);
    tx = (vw - W * k) / 2; ty = Math.max(8, (vh - H * k) / 2);
    apply();
    return true;
  }
  function actual() {
    var vw = viewport.clientWidth, vh = viewport.clientHeight;
    var cx = vw / 2, cy = vh / 2;
    zoomAt(1 / k, cx, cy);
  }
  function centerOn(g, zoom) {
    var v = viewport.getBoundingClientRect();
    if (zoom && k < zoom) {
      var r0 = g.getBoundingClientRect();
      zoomAt(zoom / k, r0.left + r0.width / 2 - v.left, r0.top + r0.height / 2 - v.top);
    }
    var r = g.getBoundingClientRect();
    var inside = r.left >= v.left + 20 && r.right <= v.right - 20 && r.top >= v.top + 20 &&
      r.bottom <= v.bottom - 20;
    if (inside && !zoom) return;
    tx += v.left + v.width / 2 - (r.left + r.width / 2);
    ty += v.top + v.height / 2 - (r.top + r.height / 2);
    apply();
  }
  viewport.addEventListener("wheel", function (e) {
    e.preventDefault();
    var r = viewport.getBoundingClientRect();
    var dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    zoomAt(Math.exp(-dy * (e.ctrlKey ? 0.01 : 0.0015)), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  var drag = null;
  viewport.addEventListener("pointerdown", function (e) {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, tx: tx, ty: ty, moved: false, id: e.pointerId };
  });
  window.addEventListener("pointermove", function (e) {
    if (!drag || e.pointerId !== drag.id) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) { drag.moved = true; viewport.classList.add("dragging"); unlight(); }
    tx = drag.tx + dx; ty = drag.ty + dy; apply();
  });
  window.addEventListener("pointerup", function (e) {
    if (!drag || e.pointerId !== drag.id) return;
    var was = drag; drag = null;
    viewport.classList.remove("dragging");
    if (was.moved) return;
    var g = e.target.closest && e.target.closest("g.el");
    if (g && svg.contains(g)) select(g.id);
    else if (viewport.contains(e.target)) select(null);
  });
  $("zoom-in").addEventListener("click", function () { zoomAt(1.25, viewport.clientWidth / 2, viewport.clientHeight / 2); });
  $("zoom-out").addEventListener("click", function () { zoomAt(0.8, viewport.clientWidth / 2, viewport.clientHeight / 2); });
  $("zoom-fit").addEventListener("click", fit);
  $("zoom-reset").addEventListener("click", actual);
  window.addEventListener("resize", function () { apply(); });

  // -- search by name --------------------------------------------------------------------------
  var matches = [], matchAt = -1, searchTimer = 0;
  function clearMatches() {
    matches.forEach(function (id) { if (els[id]) els[id].classList.remove("match"); });
    matches = []; matchAt = -1;
  }
  function mark(ids, text) {
    clearMatches();
    matches = ids;
    ids.forEach(function (id) { if (els[id]) els[id].classList.add("match"); });
    searchCount.textContent = text;
  }
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    if (!q) { clearMatches(); searchCount.textContent = ""; return; }
    var ids = [];
    svg.querySelectorAll("g.node").forEach(function (g) {
      var name = (g.getAttribute("data-name") || "").toLowerCase();
      var d = nodeData(g.id);
      var other = d && (d.grad_fn || (d.kind === "grad_fn" ? d.name : "") || "").toLowerCase();
      if (name.indexOf(q) >= 0 || (other && other.indexOf(q) >= 0)) ids.push(g.id);
    });
    mark(ids, ids.length ? ids.length + (ids.length === 1 ? " match" : " matches") : "none");
  }
  function nextMatch(back) {
    if (!matches.length) return;
    matchAt = (matchAt + (back ? matches.length - 1 : 1)) % matches.length;
    searchCount.textContent = (matchAt + 1) + " of " + matches.length;
    select(matches[matchAt], { center: true, zoom: 0.8 });
  }
  search.addEventListener("input", function () { clearTimeout(searchTimer); searchTimer = setTimeout(runSearch, 120); });
  search.addEventListener("keydown", function (e) {
    if (e.key === "Enter") { clearTimeout(searchTimer); if (!matches.length) runSearch(); nextMatch(e.shiftKey); e.preventDefault(); }
    if (e.key === "Escape") { search.value = ""; runSearch(); search.blur(); }
  });

  // -- the script, line by line ----------------------------------------------------------------
  var lineEls = [];
  D.source.forEach(function (text, n) {
    var li = h("li", { "data-line": n + 1, cls: byLine[n + 1] ? "nodes" : "" }, text || " ");
    li.addEventListener("click", function () {
      var ids = byLine[n + 1] || [];
      mark(ids.slice(), ids.length ? "line " + (n + 1) + ": " + ids.length : "line " + (n + 1) + ": none");
      if (ids.length) { matchAt = 0; select(ids[0], { center: true }); }
    });
    lineEls.push(li); sourceList.appendChild(li);
  });
  var currentLine = null;
  function markLine(line) {
    if (currentLine) currentLine.classList.remove("current");
    currentLine = line ? lineEls[line - 1] : null;
    if (currentLine) {
      currentLine.classList.add("current");
      var box = $("source-panel"), top = currentLine.offsetTop - box.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 20) box.scrollTop = top - 40;
    }
  }

  // -- the stepper over events -----------------------------------------------------------------
  var E = D.events, pos = 0, phaseShown = null, reached = {}, flows = [];
  range.max = String(E.length);
  function describe(ev) {
    if (ev.text) return [ev.text];
    var rest = {};
    Object.keys(ev).forEach(function (key) {
      if (["seq", "phase", "kind", "line", "els", "edges"].indexOf(key) < 0) rest[key] = ev[key];
    });
    return [h("b", null, ev.kind), " " + JSON.stringify(rest)];
  }
  function setClass(ids, cls, on) { ids.forEach(function (id) { if (els[id]) els[id].classList.toggle(cls, on); }); }
  function show(p) {
    pos = Math.max(0, Math.min(E.length, p));
    range.value = String(pos);
    prevBtn.disabled = pos === 0; nextBtn.disabled = pos === E.length;
    var ev = pos > 0 ? E[pos - 1] : null, phase = ev ? ev.phase : null;
    setClass(flows, "flow", false); flows = [];
    // forward: what the run has not created yet fades; backward: visited nodes turn green
    var rec = ev ? (ev.kind === "op" ? ev.id : ev.node_id) : null;
    var cut = ev && phase === "forward" ? (typeof rec === "number" ? rec :
      ev.els.length ? birth[ev.els[0]] : null) : null;
    if (phase !== phaseShown || phase === "forward") {
      Object.keys(els).forEach(function (id) {
        var b = birth[id];
        if (b === undefined) {
          var ed = edgeEnds[id];
          b = ed ? Math.max(birth[ed[0]], birth[ed[1]]) : -1;
        }
        els[id].classList.toggle("future", cut !== null && b > cut);
      });
      phaseShown = phase;
    }
    Object.keys(reached).forEach(function (id) { if (els[id]) els[id].classList.remove("reached"); });
    reached = {};
    if (phase === "backward") {
      for (var j = 0; j < pos; j++) if (E[j].phase === "backward") E[j].els.forEach(function (id) { reached[id] = 1; });
      setClass(Object.keys(reached), "reached", true);
    }
    if (ev) { flows = ev.edges || []; setClass(flows, "flow", true); }
    stepText.textContent = "";
    if (!ev) {
      stepText.appendChild(h("span", null, E.length ? E.length.toLocaleString("en") +
        " events: what the run did, in order. Press ▶ or →." : "No events to step through."));
      select(active);
      return;
    }
    stepText.appendChild(h("span", { cls: "count" }, pos + " / " + E.length));
    stepText.appendChild(h("span", { cls: "phase " + phase }, phase));
    if (ev.line) stepText.appendChild(h("span", null, "line " + ev.line + " · "));
    describe(ev).forEach(function (x) { stepText.appendChild(typeof x === "string" ? document.createTextNode(x) : x); });
    if (ev.els.length) select(ev.els[0], { center: true, line: ev.line });
    else { select(null); markLine(ev.line); }
  }
  var edgeEnds = {};
  D.edges.forEach(function (e) { edgeEnds[e[0]] = [original(e[1]), original(e[2])]; });
  prevBtn.addEventListener("click", function () { show(pos - 1); });
  nextBtn.addEventListener("click", function () { show(pos + 1); });
  range.addEventListener("input", function () { show(parseInt(range.value, 10)); });

  // -- keys and theme --------------------------------------------------------------------------
  document.addEventListener("keydown", function (e) {
    if (e.target === search || e.ctrlKey || e.metaKey || e.altKey) return;
    var cx = viewport.clientWidth / 2, cy = viewport.clientHeight / 2;
    if (e.key === "ArrowRight") { show(pos + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { show(pos - 1); e.preventDefault(); }
    else if (e.key === "+" || e.key === "=") zoomAt(1.25, cx, cy);
    else if (e.key === "-") zoomAt(0.8, cx, cy);
    else if (e.key === "0") fit();
    else if (e.key === "1") actual();
    else if (e.key === "/") { search.focus(); e.preventDefault(); }
    else if (e.key === "Escape") select(null);
  });
  $("theme").addEventListener("click", function () {
    var root = document.documentElement;
    var dark = root.getAttribute("data-theme") ? root.getAttribute("data-theme") === "dark" :
      window.matchMedia("(prefers-color-scheme: dark)").matches;
    root.setAttribute("data-theme", dark ? "light" : "dark");
  });

  if (!svg.querySelector("g.node")) notes.push("The run recorded no tensor: there is nothing to draw.");
  // the first view: the whole graph, or, when that is too small to read, the output
  var big = false;
  function place() {
    if (!fit()) return false;
    big = k < 0.2;
    if (big) {
      var start = els.out || svg.querySelector("g.node.output") || svg.querySelector("g.node");
      if (start) centerOn(start, 0.8);
      notes.push("This graph has " + svg.querySelectorAll("g.node").length.toLocaleString("en") +
        " nodes; the view starts at the output. Fit (0) shows all of it; gradcli html --rolled " +
        "folds loops into a few nodes, --lines A-B keeps some lines.");
      if (!active) showDetails(null);
    }
    return true;
  }
  if (!place() && window.ResizeObserver) {  // placed once the viewport has a size
    var watch = new ResizeObserver(function () { if (place()) watch.disconnect(); });
    watch.observe(viewport);
  }
  show(0);
  document.body.setAttribute("data-ready", "1");
  window.gradcliReady = performance.now();
})();
