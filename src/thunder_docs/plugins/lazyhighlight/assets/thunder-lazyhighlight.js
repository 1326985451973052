/* thunder-lazyhighlight: a large code block arrives as plain text (<code data-lazy>, or in a
   notebook's code cell <pre data-lazy>), its highlighted HTML in the <noscript> after its <pre>,
   read by the browser as one piece of text.
   The highlighted children are put back into the same element (so Material's copy
   button and every listener keep working) when the block comes within half a screen of the view,
   gets the focus, or the page is printed, and before the page follows a link to an anchor inside a
   block not yet put back. Without scripting the <noscript> is shown instead (defer.py).
   window.thunderLazyHighlight.restore(code) does it for one block (thunder-traces.js marks a
   code block with links up after it). */
(() => {
  "use strict";
  const LAZY = "code[data-lazy], pre[data-lazy]";

  function restore(code) {
    if (!code.hasAttribute("data-lazy")) return;
    const pre = code.closest("pre"); // the <pre> itself, for a notebook's cell
    const kept = pre.nextElementSibling;
    code.removeAttribute("data-lazy");
    if (!kept || kept.localName !== "noscript") return;
    const parsed = document.createElement("template");
    parsed.innerHTML = kept.textContent;
    const original = parsed.content.querySelector(code.localName);
    if (original) code.replaceChildren(...original.childNodes);
    kept.remove();
    pre.classList.remove("hl-plain");
  }

  const restoreAll = () => document.querySelectorAll(LAZY).forEach(restore);

  // A link to an anchor that a deferred block holds (a source line's id): put every block back
  // first, so the browser finds it.
  function reveal(hash) {
    const id = decodeURIComponent((hash || "").slice(1));
    if (!id || document.getElementById(id) || !document.querySelector(LAZY)) return false;
    restoreAll();
    return !!document.getElementById(id);
  }

  window.thunderLazyHighlight = { restore, restoreAll };

  // Blocks that come near the view are put back one per task, in the order they came, so that no
  // task keeps the page from answering for long (a phone's total blocking time).
  const waiting = [];
  function drain() {
    const code = waiting.shift();
    if (code) restore(code);
    if (waiting.length) setTimeout(drain, 0);
  }
  function later(code) {
    waiting.push(code);
    if (waiting.length === 1) setTimeout(drain, 0);
  }

  function init() {
    const near = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) { near.unobserve(entry.target); later(entry.target); }
      }
    }, { rootMargin: "50% 0px" }) : null;
    for (const code of document.querySelectorAll(LAZY)) {
      if (near) near.observe(code); else restore(code);
    }
    if (reveal(location.hash)) document.getElementById(decodeURIComponent(location.hash.slice(1))).scrollIntoView();
  }

  document.addEventListener("focusin", (e) => { // a block, or a notebook cell's box around its <pre>
    const lazy = e.target instanceof Element && (e.target.matches(LAZY) ? e.target : e.target.querySelector(":scope > pre[data-lazy]"));
    if (lazy) restore(lazy);
  });
  document.addEventListener("click", (e) => {
    const link = e.target instanceof Element && e.target.closest("a[href*='#']");
    if (link && link.pathname === location.pathname && link.host === location.host) reveal(link.hash);
  }, true);
  addEventListener("hashchange", () => {
    if (reveal(location.hash)) document.getElementById(decodeURIComponent(location.hash.slice(1))).scrollIntoView();
  });
  addEventListener("beforeprint", restoreAll);
  matchMedia("print").addEventListener("change", (e) => { if (e.matches) restoreAll(); });
  // In a task of its own, after the page's DOMContentLoaded (Material's start-up runs there): one
  // long task fewer on a phone. A deferred script runs before that event, once the page is parsed
  // (readyState "interactive" then), so the event's time in the navigation's timing says if it came.
  const start = () => setTimeout(init, 0);
  const navigation = performance.getEntriesByType("navigation")[0];
  if (navigation?.domContentLoadedEventStart > 0 || document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
