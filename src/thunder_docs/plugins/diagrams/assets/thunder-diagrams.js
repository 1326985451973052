// Diagrams (thunder-diagrams): a diagram too wide for its column at the smallest size its labels may
// have scrolls in its box, which then takes keyboard focus (arrow keys scroll it). A button under
// each diagram opens it full size in a dialog; Escape, its Close button or the browser's Back
// button closes it (opening it adds a history entry of the same address), and focus returns to
// the button. Without this script the page shows each diagram as drawn.
(() => {
  // A box that scrolls is a named group in the Tab order; one that does not is neither.
  const fit = (box) => {
    if (box.scrollWidth > box.clientWidth + 1) {
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", box.dataset.name);
    } else {
      ["tabindex", "role", "aria-label"].forEach((attribute) => box.removeAttribute(attribute));
    }
  };
  const observer = new ResizeObserver((entries) => entries.forEach((entry) => fit(entry.target)));
  const element = (tag, className, text) => {
    const made = document.createElement(tag);
    made.className = className;
    if (text) made.textContent = text;
    return made;
  };
  document.querySelectorAll(".diagram__scroll").forEach((box) => {
    const svg = box.querySelector("svg");
    if (!svg) return;
    const name = (svg.querySelector("title") || {}).textContent || "diagram";
    box.dataset.name = name;
    observer.observe(box); // its first call, once the page is laid out, fits the box (no forced layout)
    const bar = element("div", "diagram__bar");
    const open = element("button", "diagram__open", "Full size");
    open.type = "button";
    open.setAttribute("aria-label", `Full size: ${name}`);
    bar.append(open);
    box.after(bar);
    let dialog = null;
    open.addEventListener("click", () => {
      if (!dialog) {
        dialog = element("dialog", "diagram__full");
        dialog.setAttribute("aria-label", name);
        const head = element("div", "diagram__bar diagram__head");
        const close = element("button", "diagram__close", "Close");
        close.type = "button";
        close.addEventListener("click", () => dialog.close());
        const canvas = element("div", "diagram__canvas");
        canvas.tabIndex = 0;
        canvas.setAttribute("role", "group");
        canvas.setAttribute("aria-label", name);
        head.append(element("span", "diagram__name", name), close);
        dialog.append(head, canvas);
        dialog.addEventListener("close", () => {
          box.append(svg);
          fit(box);
          open.focus();
          if (history.state && history.state.thunderDiagram) history.back(); // closed here: drop its entry
        });
        bar.after(dialog);
      }
      dialog.lastChild.append(svg);
      dialog.showModal();
      history.pushState({ thunderDiagram: true }, "");
    });
  });
  // Back, with a diagram open full size: it closes (its entry is already gone).
  addEventListener("popstate", () => {
    const shown = document.querySelector("dialog.diagram__full[open]");
    if (shown) shown.close();
  });
})();
