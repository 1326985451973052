/* thunder-traces: printed traces you can follow. Each block's <code data-traces> holds its traces
   (scope, tags, annotations, saved tensors) and the map of its lines (data-lines, made at build
   time); when the block first comes into view or gets the focus, each trace line is wrapped in a
   .tl (data-t, data-depth, data-src, data-reads) and each proxy name in a .tp (data-proxy, data-def).
   - hover or focus a name: it, its definition and every use, in every block, get .is-linked;
     click (or Enter) pins, Escape clears; a tooltip shows the annotation and the defining line;
   - hover a code line (.sl) or a source link (.tsrc): the trace lines it made get .is-src (with
     thunder-explain, also those made in the functions it called: data-yours; the tooltip shows
     such a line's chain of frames, data-chain);
   - a line with subsymbols folds (a button before it);
   - a backward line, selected: the forward lines that made the saved tensors it reads get .is-made;
   - <code data-walk>: a pass stepper after the block;
   - the keyboard: a block is one Tab stop (roving tabindex); arrow keys move between its names,
     links and fold buttons (Left/Right along a line, Up/Down between lines, Home/End to the ends
     of a line, Ctrl+Home/End to the ends of the block). */
(() => {
  "use strict";
  const all = (sel, root = document) => [...root.querySelectorAll(sel)];
  const BLOCKS = "[data-traces], [data-roving]"; // trace blocks, and code blocks with links
  const ITEMS = ".tp, a[href], button.tfold"; // what the arrow keys move between, inside a block
  const KEYS = "trace-keys";
  let pinned = null; // the pinned name element
  let shown = null; // the name element whose highlight shows
  let selected = null; // the selected trace line (backward to forward)
  let tip = null;

  const traces = (code) => code._traces || (code._traces = JSON.parse(code.dataset.traces || "[]"));
  const traceOf = (el) => {
    const line = el.closest(".tl");
    const code = el.closest(BLOCKS);
    return line && code ? traces(code)[+line.dataset.t] || {} : {};
  };
  const scopeOf = (el) => { const s = traceOf(el).scope; return s === undefined ? -1 : s; };
  const sameScope = (a, b) => a < 0 || b < 0 || a === b;
  const named = (name, scope, root = document) =>
    all(`.tp[data-proxy="${CSS.escape(name)}"]`, root).filter((e) => sameScope(scopeOf(e), scope));

  function clear(cls) { all("." + cls).forEach((e) => e.classList.remove(cls)); }

  // -- marking a block up from its line map ----------------------------------------------------
  function textNodes(root) {
    const found = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let at = 0;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.data.length) { found.push([n, at]); at += n.data.length; }
    }
    return found;
  }

  function nodeAt(texts, pos) { // the last text node that starts at or before pos
    let lo = 0, hi = texts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (texts[mid][1] <= pos) lo = mid; else hi = mid - 1;
    }
    return texts[lo];
  }

  // Wrap characters start..end-1 in el, as deep inside as possible; a stretch that starts or ends
  // inside another element is left alone (as the build's wrap does). Stretches are wrapped from
  // the end of a block backwards: a text node keeps the text before a wrapped stretch, so the
  // offsets found before stay right for what comes before.
  function wrapRange(texts, start, end, el) {
    if (!texts.length || end <= start) return null;
    const [a, aAt] = nodeAt(texts, start);
    const [b, bAt] = nodeAt(texts, end - 1);
    const range = document.createRange();
    try {
      range.setStart(a, start - aAt);
      range.setEnd(b, end - bAt);
      const common = range.commonAncestorContainer;
      if (common.nodeType !== Node.TEXT_NODE) {
        let n = range.startContainer;
        if (range.startOffset === 0) {
          while (n.parentNode !== common && !n.previousSibling) n = n.parentNode;
          if (n !== range.startContainer) range.setStartBefore(n);
        }
        n = range.endContainer;
        if (n.nodeType === Node.TEXT_NODE && range.endOffset === n.data.length) {
          while (n.parentNode !== common && !n.nextSibling) n = n.parentNode;
          if (n !== range.endContainer) range.setEndAfter(n);
        }
      }
      range.surroundContents(el);
      return el;
    } catch {
      return null;
    }
  }

  function lineElement(row) {
    const el = document.createElement("span");
    el.className = row.k ? "tl tl-" + row.k : "tl";
    el.dataset.t = row.t;
    if (!row.k) {
      el.dataset.sym = row.y;
      el.dataset.depth = row.d;
      if (row.x) el.dataset.exec = row.x;
      if (row.o) el.dataset.defs = row.o;
      if (row.r) el.dataset.reads = row.r;
    }
    if (row.s) el.dataset.src = row.s;
    if (row.u) el.dataset.yours = row.u; // thunder-explain: your lines this line was made under
    if (row.c) el.dataset.chain = row.c; // thunder-explain: the frames from your line down to its own
    return el;
  }

  function nameElement(name, def) {
    const el = document.createElement("span");
    el.className = "tp";
    el.dataset.proxy = name;
    if (def) el.setAttribute("data-def", "");
    el.tabIndex = -1;
    return el;
  }

  function markup(code) {
    if (code._marked) return;
    code._marked = true;
    if (code.hasAttribute("data-lazy") && window.thunderLazyHighlight) window.thunderLazyHighlight.restore(code);
    const rows = JSON.parse(code.dataset.lines || "[]").sort((a, b) => b.l - a.l);
    if (rows.length) {
      const texts = textNodes(code);
      const text = code.textContent;
      const starts = [0];
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
      for (const row of rows) {
        if (row.l >= starts.length) continue;
        const first = starts[row.l];
        const line = wrapRange(texts, first, row.l + 1 < starts.length ? starts[row.l + 1] : text.length, lineElement(row));
        if (!line) continue;
        const inside = textNodes(line);
        let pos = 0;
        const names = (row.n || []).slice().sort((a, b) => a[0] - b[0]).filter((n) => {
          const ok = n[0] >= pos; // overlapping names: the first wins
          if (ok) pos = n[0] + n[1].length;
          return ok;
        });
        for (const [at, name, def] of names.reverse()) wrapRange(inside, at, at + name.length, nameElement(name, def));
      }
    }
    folds(code);
    code.classList.add("is-marked");
    rove(code);
    if (code._walk) code._walk();
    if (shown) named(shown.dataset.proxy, scopeOf(shown), code).forEach((e) => e.classList.add("is-linked"));
    if (selected) select(selected);
  }

  // -- one Tab stop per block (roving tabindex) ----------------------------------------------------
  const visibleItems = (code) => all(ITEMS, code).filter((e) => !e.closest(".is-folded"));
  // Material's copy button, in the block's <pre> (added by Material's script, maybe after ours ran):
  // an item of the block too, above its first line.
  const copyOf = (code) => code.closest("pre")?.querySelector(":scope > .md-code__nav > .md-code__button") || null;
  const blockOf = (item) => item.closest(BLOCKS) ||
    (item.matches(".md-code__button") ? [...item.closest("pre").children].find((e) => e.matches(BLOCKS)) || null : null);

  function own(code) { // the block itself is the Tab stop until it has items of its own
    const want = !code._marked ? "0" : code._current ? null : code.getAttribute("tabindex");
    if (code.getAttribute("tabindex") === want) return;
    if (want === null) code.removeAttribute("tabindex"); else code.setAttribute("tabindex", want);
  }

  function rove(code) { // after a block is marked up, folded or drawn again: one item takes Tab
    const items = all(ITEMS, code);
    items.forEach((e) => { e.tabIndex = -1; });
    const copy = copyOf(code);
    if (copy) copy.tabIndex = -1;
    let current = code._current;
    if (!current || !(code.contains(current) || current === copy) || current.closest(".is-folded")) {
      const shownItems = visibleItems(code);
      current = shownItems.find((e) => e.matches(".tp")) || shownItems[0] || null;
    }
    if (current) current.tabIndex = 0;
    code._current = current;
    own(code);
  }

  function take(code, item) {
    if (code._current && code._current !== item) code._current.tabIndex = -1;
    item.tabIndex = 0;
    code._current = item;
  }

  // Items in visual rows: those whose middles are on one line of the block.
  function rows(items) {
    const out = [];
    for (const item of items) {
      const box = item.getBoundingClientRect();
      const mid = box.top + box.height / 2;
      const row = out[out.length - 1];
      if (row && Math.abs(row.mid - mid) < box.height / 2) row.items.push(item);
      else out.push({ mid, items: [item] });
    }
    return out.map((r) => r.items);
  }

  function target(code, item, key, ctrl) {
    const items = visibleItems(code);
    if (ctrl && key === "Home") return items[0];
    if (ctrl && key === "End") return items[items.length - 1];
    const lines = rows(items);
    const copy = copyOf(code);
    if (item === copy) return key === "ArrowDown" && lines.length ? nearest(lines[0], item) : null;
    const r = lines.findIndex((row) => row.includes(item));
    if (r < 0) return null;
    const row = lines[r], i = row.indexOf(item);
    if (key === "ArrowLeft") return row[i - 1];
    if (key === "ArrowRight") return row[i + 1];
    if (key === "Home") return row[0];
    if (key === "End") return row[row.length - 1];
    if (key === "ArrowUp" && r === 0) return copy;
    const next = lines[key === "ArrowUp" ? r - 1 : r + 1];
    return next ? nearest(next, item) : null;
  }

  function nearest(row, item) { // the item of a row closest to the item's middle, left to right
    const box = item.getBoundingClientRect(), x = box.left + box.width / 2;
    const far = (e) => { const b = e.getBoundingClientRect(); return Math.abs(b.left + b.width / 2 - x); };
    return row.reduce((best, e) => (far(e) < far(best) ? e : best));
  }

  function keys() { // the hint a block's description points to (once per page)
    if (document.getElementById(KEYS)) return;
    const hint = document.createElement("div");
    hint.id = KEYS;
    hint.className = "tt-sr";
    hint.textContent = "Arrow keys move between the names and links of a trace or code block: left and right along a line, " +
      "up and down between lines (up from the first line: the copy button), Home and End to the ends of a line. " +
      "Enter pins a name's highlight, " +
      "Escape clears it. Tab leaves the block.";
    document.body.appendChild(hint);
  }

  function widget(code) { // a block as a composite widget: named, described, one Tab stop
    const fn = (traces(code)[0] || {}).fn;
    const trace = code.matches("[data-traces]");
    code.setAttribute("role", "group");
    code.setAttribute("aria-roledescription", trace ? "trace" : "code");
    code.setAttribute("aria-label", fn ? `trace of ${fn}` : trace ? "printed trace"
      : code.closest(".exec-output") ? "output with links" : "code with links");
    code.setAttribute("aria-describedby", KEYS);
    all(ITEMS, code).forEach((e) => { e.tabIndex = -1; });
    own(code);
  }

  // -- names ---------------------------------------------------------------------------------
  function show(el) {
    clear("is-linked");
    shown = el;
    if (!el) return hideTip();
    named(el.dataset.proxy, scopeOf(el)).forEach((e) => e.classList.add("is-linked"));
    showTip(el);
  }

  function definition(el) {
    const code = el.closest(BLOCKS);
    const sel = `.tp[data-def][data-proxy="${CSS.escape(el.dataset.proxy)}"]`;
    const local = code && code.querySelector(sel);
    if (local) return local;
    return all(sel).find((e) => sameScope(scopeOf(e), scopeOf(el)));
  }

  function showTip(el) {
    if (!tip) {
      tip = document.createElement("div");
      tip.id = "trace-tip";
      tip.className = "trace-tip";
      tip.setAttribute("role", "tooltip");
      document.body.appendChild(tip);
    }
    const name = el.dataset.proxy;
    const annotation = (traceOf(el).proxies || {})[name];
    const def = definition(el);
    tip.textContent = "";
    const head = tip.appendChild(document.createElement("div"));
    head.appendChild(document.createElement("b")).textContent = name;
    head.appendChild(document.createTextNode(annotation ? ": " + annotation : ""));
    const line = def && def.closest(".tl");
    if (line) {
      const text = line.textContent.trim();
      tip.appendChild(document.createElement("div")).textContent =
        "defined by: " + (text.length > 90 ? text.slice(0, 89) + "…" : text);
      if (line.dataset.chain) {
        const chain = tip.appendChild(document.createElement("div"));
        chain.className = "tt-chain";
        chain.textContent = "made at: " + line.dataset.chain;
      }
    }
    if (el === document.activeElement && el.matches(":focus-visible")) {
      const hint = tip.appendChild(document.createElement("div"));
      hint.className = "tt-keys";
      hint.textContent = "←→↑↓ names · Enter pins · Esc clears";
    }
    tip.hidden = false;
    place(el);
    el.setAttribute("aria-describedby", "trace-tip");
  }

  // The tooltip goes where it covers no highlighted name (nor the one it is about): above the
  // name, else below, else farther up or down, at the name's left or right edge.
  function place(el) {
    const box = el.getBoundingClientRect();
    const w = tip.offsetWidth, h = tip.offsetHeight;
    const avoid = [box, ...all(".tp.is-linked").map((e) => e.getBoundingClientRect())
      .filter((r) => r.width && r.bottom > 0 && r.top < innerHeight)];
    const clampX = (x) => Math.max(4, Math.min(x, innerWidth - w - 4));
    const xs = [...new Set([clampX(box.left), clampX(box.right - w), clampX(box.right + 8)])];
    const free = (x, y) => y >= 0 && y + h <= innerHeight &&
      !avoid.some((r) => x < r.right + 1 && x + w > r.left - 1 && y < r.bottom + 1 && y + h > r.top - 1);
    const step = Math.max(6, box.height / 2);
    for (let d = 4; d < innerHeight; d += step) {
      for (const y of [box.top - d - h, box.bottom + d]) {
        const x = xs.find((x) => free(x, y));
        if (x !== undefined) return put(x, y);
      }
    }
    put(clampX(box.left), box.bottom + 6 + h > innerHeight ? box.top - h - 6 : box.bottom + 6);
  }

  function put(x, y) {
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }

  function hideTip() {
    if (tip) tip.hidden = true;
    all("[aria-describedby=trace-tip]").forEach((e) => e.removeAttribute("aria-describedby"));
  }

  function pin(el) {
    pinned = pinned === el ? null : el;
    all(".tp.is-pinned").forEach((e) => e.classList.remove("is-pinned"));
    if (pinned) pinned.classList.add("is-pinned");
    show(pinned || el);
  }

  // -- source lines ----------------------------------------------------------------------------
  function source(src) {
    clear("is-src");
    if (!src) return;
    const q = CSS.escape(src);
    all(`.tl[data-src="${q}"], .tl[data-yours~="${q}"], .sl[data-src="${q}"]`).forEach((e) => e.classList.add("is-src"));
  }

  // -- backward to forward ---------------------------------------------------------------------
  function select(line) {
    clear("is-made");
    clear("is-sel");
    selected = null;
    const trace = line ? traceOf(line) : {};
    if (!line || !(trace.tags || []).includes("BACKWARD")) return;
    selected = line;
    const reads = (line.dataset.reads || "").split(" ").filter(Boolean);
    line.classList.add("is-sel");
    for (const code of all(BLOCKS)) {
      traces(code).forEach((fw, t) => {
        if (!(fw.tags || []).includes("AUGMENTED_FORWARD") || !sameScope(fw.scope, trace.scope)) return;
        for (const name of reads.filter((n) => (fw.saved || []).includes(n))) {
          for (const def of all(`.tl[data-t="${t}"] .tp[data-def][data-proxy="${CSS.escape(name)}"]`, code)) {
            def.closest(".tl").classList.add("is-made");
          }
        }
      });
    }
  }

  // -- folding -----------------------------------------------------------------------------------
  function folds(code) {
    const lines = all(".tl", code);
    lines.forEach((line, i) => {
      if (line.dataset.depth === undefined || line.querySelector(":scope > .tfold")) return;
      const depth = +line.dataset.depth;
      const inner = [];
      for (let k = i + 1; k < lines.length; k++) {
        const next = lines[k];
        if (next.dataset.t !== line.dataset.t || next.dataset.depth === undefined || +next.dataset.depth <= depth) break;
        inner.push(next);
      }
      if (!inner.length) return;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "tfold";
      button.tabIndex = -1;
      button.setAttribute("aria-expanded", "true");
      button.setAttribute("aria-label", `Fold the ${inner.length} subsymbol line${inner.length > 1 ? "s" : ""} of ${line.dataset.sym}`);
      button.addEventListener("click", () => {
        const open = button.getAttribute("aria-expanded") !== "true";
        button.setAttribute("aria-expanded", String(open));
        button.setAttribute("aria-label", button.getAttribute("aria-label").replace(open ? "Unfold" : "Fold", open ? "Fold" : "Unfold"));
        inner.forEach((e) => {
          e.classList.toggle("is-folded", !open);
          const b = e.querySelector(":scope > .tfold");
          if (b && open) { b.setAttribute("aria-expanded", "true"); b.setAttribute("aria-label", b.getAttribute("aria-label").replace("Unfold", "Fold")); }
        });
        rove(code);
      });
      line.classList.add("has-sub");
      line.prepend(button);
      code.classList.add("has-folds");
    });
  }

  // -- the pass stepper ------------------------------------------------------------------------
  // The stepper's traces: in data-walk (thunder-explain's page), or in the file data-walk-src names,
  // fetched when the block comes near the view (the site: a walk weighs as much as the rest of a page).
  function stepper(code) {
    let steps = code.dataset.walk ? JSON.parse(code.dataset.walk) : null;
    const box = document.createElement("div");
    box.className = "trace-stepper";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "Pass stepper: each trace of last_traces in order");
    box.innerHTML =
      '<div class="ts-bar"><button type="button" class="ts-prev" aria-label="Previous trace">◀</button>' +
      '<button type="button" class="ts-next" aria-label="Next trace">▶</button>' +
      '<span class="ts-title" aria-live="polite"></span>' +
      '<label class="ts-hide"><input type="checkbox"> Hide passes that changed nothing</label></div>' +
      '<div class="highlight"><pre><code class="ts-code"></code></pre></div>' +
      '<div class="ts-legend"><span class="is-add">added by this pass</span> <span class="is-del">removed by this pass</span></div>';
    const [prev, next] = [box.querySelector(".ts-prev"), box.querySelector(".ts-next")];
    const hide = box.querySelector("input");
    const out = box.querySelector(".ts-code");
    let at = 0;
    const title = box.querySelector(".ts-title");
    const visible = (k) => !(hide.checked && steps[k].same);
    const move = (dir) => {
      for (let k = at + dir; k >= 0 && k < steps.length; k += dir) if (visible(k)) return k;
      return at;
    };
    function render() {
      if (!steps) {
        title.textContent = "Loading the traces of last_traces…";
        prev.disabled = next.disabled = true;
        return;
      }
      const step = steps[at];
      out._traces = step.traces;
      out.dataset.traces = "";
      out.innerHTML = step.html;
      out._marked = true;
      out._current = null;
      out.classList.add("is-marked");
      title.textContent = `traces[${at}] (${at + 1} of ${steps.length}): ` +
        (step.title || "from the interpreter (no pass)") + (step.same ? ": no change" : "");
      prev.disabled = move(-1) === at;
      next.disabled = move(1) === at;
      widget(out);
      folds(out);
      rove(out);
      if (shown) show(pinned || null);
    }
    prev.addEventListener("click", () => { at = move(-1); render(); });
    next.addEventListener("click", () => { at = move(1); render(); });
    hide.addEventListener("change", () => { if (!visible(at)) at = move(1) !== at ? move(1) : move(-1); render(); });
    box.addEventListener("keydown", (e) => {
      if (e.target === hide || out.contains(e.target) || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
      at = move(e.key === "ArrowLeft" ? -1 : 1);
      render();
      e.preventDefault();
    });
    code.closest(".highlight").after(box);
    code._walk = () => { // fetch the traces once, then show the first
      if (steps || code._walking) return;
      code._walking = fetch(new URL(code.dataset.walkSrc, location.href))
        .then((r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); return r.json(); })
        .then((found) => { steps = found; render(); })
        .catch((err) => { title.textContent = `The traces of last_traces could not be loaded (${err.message}).`; });
    };
    box.addEventListener("pointerenter", code._walk);
    box.addEventListener("focusin", code._walk);
    render();
    if (code._marked) code._walk();
  }

  // -- events ----------------------------------------------------------------------------------
  const nameAt = (e) => e.target instanceof Element && e.target.closest(".tp");
  const srcAt = (e) => e.target instanceof Element && e.target.closest(".sl, .tsrc");
  const srcOf = (el) => el.dataset.src || (document.getElementById(el.hash.slice(1)) || el).dataset.src;

  document.addEventListener("mouseover", (e) => {
    const name = nameAt(e);
    if (name && !pinned) show(name);
    const src = srcAt(e);
    if (src) source(srcOf(src));
  });
  document.addEventListener("mouseout", (e) => {
    const name = nameAt(e);
    if (name && !pinned && !name.contains(e.relatedTarget)) show(document.activeElement.closest?.(".tp") || null);
    const src = srcAt(e);
    if (src && !src.contains(e.relatedTarget)) source(null);
  });
  document.addEventListener("focusin", (e) => {
    const t = e.target;
    if (t instanceof Element && t.matches(BLOCKS)) { // Tab reached a block: on to its item
      markup(t);
      if (t._current) t._current.focus();
      return;
    }
    const item = t instanceof Element && (t.closest(ITEMS) || (t.matches(".md-code__button") && t));
    const code = item && blockOf(item);
    if (code && code._marked) take(code, item);
    const name = nameAt(e);
    if (name && !pinned) show(name);
    const src = srcAt(e);
    source(src ? srcOf(src) : null);
    const line = t instanceof Element && t.closest(".tl");
    if (line) select(line);
  });
  document.addEventListener("focusout", (e) => {
    if (nameAt(e) && !pinned && !(e.relatedTarget && e.relatedTarget.closest?.(".tp"))) show(null);
  });
  document.addEventListener("click", (e) => {
    const name = nameAt(e);
    if (name) pin(name);
    const line = e.target instanceof Element && e.target.closest(".tl");
    if (line && !e.target.closest(".tfold")) select(line);
  });
  document.addEventListener("keydown", (e) => {
    const name = nameAt(e);
    if (name && (e.key === "Enter" || e.key === " ")) { pin(name); e.preventDefault(); }
    if (e.key === "Escape") { pinned = null; clear("is-pinned"); show(null); select(null); source(null); }
    const t = e.target;
    const item = t instanceof Element && (t.closest(ITEMS) || (t.matches(".md-code__button") && t));
    const code = item && blockOf(item);
    if (!code || e.altKey || e.shiftKey || e.metaKey ||
        !["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(e.key)) return;
    e.preventDefault();
    const to = target(code, item, e.key, e.ctrlKey);
    if (to && to !== item) { take(code, to); to.focus(); }
  });

  // the tooltip follows its name when the page scrolls (it is placed in the window)
  addEventListener("scroll", () => { if (shown && tip && !tip.hidden) showTip(shown); }, { passive: true });

  function init() {
    keys();
    // A code block whose names link to their reference entries is one Tab stop too, as is a
    // notebook's code cell with links (one sent as plain text, thunder-lazyhighlight, says so
    // with data-links: marked up in view).
    for (const code of all(".md-typeset div.highlight pre > code:not([data-traces]), .jupyter-wrapper .highlight-ipynb > pre")) {
      if (code.querySelector("a[href]")) { code.dataset.roving = ""; code._marked = true; }
      else if (code.hasAttribute("data-links")) code.dataset.roving = "";
    }
    const blocks = all(BLOCKS);
    // Material gives a code block that scrolls a tabindex, and takes it away when it no longer
    // does; a trace block keeps one Tab stop, its own (own()).
    const guard = new MutationObserver((changes) => changes.forEach((c) => own(c.target)));
    // Material adds a block's copy button to its <pre>: it leaves the Tab order for the block's one stop.
    const copies = new MutationObserver((changes) => changes.forEach((c) => {
      const code = [...c.target.children].find((e) => e.matches(BLOCKS));
      const copy = code && copyOf(code);
      if (copy && copy !== code._current) copy.tabIndex = -1;
    }));
    // Blocks near the view are marked up one per task (no long task on a phone).
    const waiting = [];
    const drain = () => {
      const code = waiting.shift();
      if (code) markup(code);
      if (waiting.length) setTimeout(drain, 0);
    };
    const seen = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        seen.unobserve(entry.target);
        waiting.push(entry.target);
        if (waiting.length === 1) setTimeout(drain, 0);
      }
    }, { rootMargin: "50% 0px" }) : null;
    for (const code of blocks) {
      widget(code);
      guard.observe(code, { attributes: true, attributeFilter: ["tabindex"] });
      if (code.parentElement) copies.observe(code.parentElement, { childList: true });
      const copy = copyOf(code);
      if (copy) copy.tabIndex = -1;
      if (code._marked) rove(code);
      else if (seen) seen.observe(code);
      else markup(code);
      if (code.dataset.walk || code.dataset.walkSrc) stepper(code);
    }
  }
  // In a task of its own, after the page's DOMContentLoaded (Material's start-up runs there): one
  // long task fewer on a phone. A deferred script runs before that event, once the page is parsed
  // (readyState "interactive" then), so the event's time in the navigation's timing says if it came.
  const start = () => setTimeout(init, 0);
  const navigation = performance.getEntriesByType("navigation")[0];
  if (navigation?.domContentLoadedEventStart > 0 || document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
