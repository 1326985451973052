/* thunder-traces: printed traces you can follow. The build marks each trace line (.tl, with
   data-t, data-depth, data-src, data-reads) and each proxy name (.tp, data-proxy, data-def);
   each block's <code data-traces> holds its traces (scope, tags, annotations, saved tensors).
   - hover or focus a name: it, its definition and every use, in every block, get .is-linked;
     click (or Enter) pins, Escape clears; a tooltip shows the annotation and the defining line;
   - hover a code line (.sl) or a source link (.tsrc): the trace lines it made get .is-src;
   - a line with subsymbols folds (a button before it);
   - a backward line, selected: the forward lines that made the saved tensors it reads get .is-made;
   - <code data-walk>: a pass stepper after the block. */
(() => {
  "use strict";
  const all = (sel, root = document) => [...root.querySelectorAll(sel)];
  let pinned = null; // the pinned name element
  let shown = null; // the name element whose highlight shows
  let tip = null;

  const traces = (code) => code._traces || (code._traces = JSON.parse(code.dataset.traces || "[]"));
  const traceOf = (el) => {
    const line = el.closest(".tl");
    const code = el.closest("[data-traces]");
    return line && code ? traces(code)[+line.dataset.t] || {} : {};
  };
  const scopeOf = (el) => { const s = traceOf(el).scope; return s === undefined ? -1 : s; };
  const sameScope = (a, b) => a < 0 || b < 0 || a === b;
  const named = (name, scope) => all(`.tp[data-proxy="${CSS.escape(name)}"]`).filter((e) => sameScope(scopeOf(e), scope));

  function clear(cls) { all("." + cls).forEach((e) => e.classList.remove(cls)); }

  // -- names ---------------------------------------------------------------------------------
  function show(el) {
    clear("is-linked");
    shown = el;
    if (!el) return hideTip();
    named(el.dataset.proxy, scopeOf(el)).forEach((e) => e.classList.add("is-linked"));
    showTip(el);
  }

  function definition(el) {
    const code = el.closest("[data-traces]");
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
    }
    tip.hidden = false;
    const box = el.getBoundingClientRect();
    tip.style.left = Math.max(4, Math.min(box.left, innerWidth - tip.offsetWidth - 4)) + "px";
    tip.style.top = (box.bottom + 6 + tip.offsetHeight > innerHeight ? box.top - tip.offsetHeight - 6 : box.bottom + 6) + "px";
    el.setAttribute("aria-describedby", "trace-tip");
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
    all(`.tl[data-src="${CSS.escape(src)}"], .sl[data-src="${CSS.escape(src)}"]`).forEach((e) => e.classList.add("is-src"));
  }

  // -- backward to forward ---------------------------------------------------------------------
  function select(line) {
    clear("is-made");
    clear("is-sel");
    const trace = line ? traceOf(line) : {};
    if (!line || !(trace.tags || []).includes("BACKWARD")) return;
    const reads = (line.dataset.reads || "").split(" ").filter(Boolean);
    line.classList.add("is-sel");
    for (const code of all("[data-traces]")) {
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
      });
      line.classList.add("has-sub");
      line.prepend(button);
      code.classList.add("has-folds");
    });
  }

  // -- the pass stepper ------------------------------------------------------------------------
  function stepper(code) {
    const steps = JSON.parse(code.dataset.walk);
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
    const visible = (k) => !(hide.checked && steps[k].same);
    const move = (dir) => {
      for (let k = at + dir; k >= 0 && k < steps.length; k += dir) if (visible(k)) return k;
      return at;
    };
    function render() {
      const step = steps[at];
      out._traces = step.traces;
      out.dataset.traces = "";
      out.innerHTML = step.html;
      box.querySelector(".ts-title").textContent = `traces[${at}] of ${steps.length - 1}: ` +
        (step.title || "from the interpreter (no pass)") + (step.same ? ": no change" : "");
      prev.disabled = move(-1) === at;
      next.disabled = move(1) === at;
      folds(out);
      if (shown) show(pinned || null);
    }
    prev.addEventListener("click", () => { at = move(-1); render(); });
    next.addEventListener("click", () => { at = move(1); render(); });
    hide.addEventListener("change", () => { if (!visible(at)) at = move(1) !== at ? move(1) : move(-1); render(); });
    box.addEventListener("keydown", (e) => {
      if (e.target === hide || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
      at = move(e.key === "ArrowLeft" ? -1 : 1);
      render();
      e.preventDefault();
    });
    code.closest(".highlight").after(box);
    render();
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
    const name = nameAt(e);
    if (name && !pinned) show(name);
    const src = srcAt(e);
    source(src ? srcOf(src) : null);
    const line = e.target instanceof Element && e.target.closest(".tl");
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
  });

  // the tooltip follows its name when the page scrolls (it is placed in the window)
  addEventListener("scroll", () => { if (shown && tip && !tip.hidden) showTip(shown); }, { passive: true });

  function init() {
    for (const code of all("[data-traces]")) {
      folds(code);
      if (code.dataset.walk) stepper(code);
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
