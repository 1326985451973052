/* thunder-taborder: the link lists that Material shows around every page (the section tabs, the
   sidebar's navigation, the table of contents) are one Tab stop each, like a trace block (roving
   tabindex): Tab reaches the list's current link (the one focused last; at first the current
   page's, section's or tab's), the arrow keys move between its shown links (Up and Left back,
   Down and Right on), Home and End go to its first and last, and Tab leaves it. The links stay
   links in their <nav>: a screen reader lists and reads them as before. A list does this only
   while Material shows it beside the page (the tabs and the navigation from 76.25em wide, the
   table of contents from 60em); in the phone's drawer, a menu the reader opened, each link is a
   Tab stop, as without this script. */
(() => {
  "use strict";
  const LISTS = { // a list, and the widths at which Material shows it beside the page
    "nav.md-tabs": "(min-width: 76.25em)",
    "nav.md-nav--primary": "(min-width: 76.25em)",
    ".md-sidebar--secondary nav.md-nav--secondary": "(min-width: 60em)",
  };
  const ACTIVE = "a.md-nav__link--active, .md-tabs__item--active > a";
  const HINT = "link-list-keys";

  const shown = (list) => [...list.querySelectorAll("a[href]")].filter((a) => a.checkVisibility());

  function rove(list) { // the one link of the list in the Tab order, while the list is beside the page
    if (!list._beside.matches) return restore(list);
    const links = shown(list);
    const keep = list._current && links.includes(list._current) ? list._current
      : links.find((a) => a.matches(ACTIVE)) || links[0];
    for (const a of list.querySelectorAll("a[href]")) a.tabIndex = a === keep ? 0 : -1;
    list._current = keep || null;
  }

  function restore(list) { // each link's tabindex as the page had it
    for (const a of list.querySelectorAll("a[href]")) {
      if (a._tabindex === undefined) continue;
      if (a._tabindex === null) a.removeAttribute("tabindex"); else a.setAttribute("tabindex", a._tabindex);
    }
  }

  function hint() {
    const made = document.createElement("div");
    made.id = HINT;
    made.hidden = true; // a description may point to hidden text
    made.textContent = "Arrow keys move between the links of this list; Home and End go to its first and last; Tab leaves it.";
    document.body.appendChild(made);
  }

  function init() {
    const lists = Object.entries(LISTS).flatMap(([selector, media]) =>
      [...document.querySelectorAll(selector)].map((list) => Object.assign(list, { _beside: matchMedia(media) })));
    if (!lists.length) return;
    hint();
    for (const list of lists) {
      list.setAttribute("aria-describedby", HINT);
      for (const a of list.querySelectorAll("a[href]")) a._tabindex = a.getAttribute("tabindex");
      rove(list);
      list._beside.addEventListener("change", () => rove(list));
      list.addEventListener("focusin", (e) => {
        if (e.target.matches("a[href]")) { list._current = e.target; rove(list); }
      });
      list.addEventListener("keydown", (e) => {
        const at = e.target;
        if (!list._beside.matches || !at.matches("a[href]") || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        const links = shown(list), i = links.indexOf(at);
        const to = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: links.length - 1 }[e.key];
        if (to === undefined || i < 0) return;
        e.preventDefault();
        const next = links[Math.max(0, Math.min(links.length - 1, to))];
        if (next && next !== at) next.focus();
      });
    }
    // The drawer opening, a section unfolding or the window's width changing shows other links.
    const again = () => lists.forEach(rove);
    addEventListener("resize", again, { passive: true });
    document.addEventListener("change", (e) => { if (e.target.matches?.(".md-toggle, .md-nav__toggle")) requestAnimationFrame(again); });
  }

  // In a task of its own, after the page's DOMContentLoaded (Material's start-up runs there): one
  // long task fewer on a phone. A deferred script runs before that event, once the page is parsed
  // (readyState "interactive" then), so the event's time in the navigation's timing says if it came.
  const start = () => setTimeout(init, 0);
  const navigation = performance.getEntriesByType("navigation")[0];
  if (navigation?.domContentLoadedEventStart > 0 || document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
