"""mkdocs-llmstxt's ``preprocess``: a page's HTML made ready for its Markdown copy.

mkdocs-llmstxt converts each page's HTML to Markdown in its ``on_page_content`` hook, which runs
after thunder-links and thunder-traces have marked the page up (plugins/pipeline.py). This
function edits that HTML (a BeautifulSoup tree) before the conversion:

- a diagram is still a placeholder there (thunder-diagrams draws its SVG in ``on_post_page``):
  it becomes a ``mermaid`` code block holding the diagram's Mermaid text, whose ``accTitle``
  and ``accDescr`` lines say what it shows;
- a cross-reference autorefs has not resolved yet (``<autoref>``) gives way to its content,
  so ``thunder.jit`` stays inline code (the plugin's own clean-up would keep only its text);
- the notebook page (mkdocs-jupyter's HTML): each cell's copy button, with its hidden "Copied!"
  and the hidden copy of the cell's source it copies, its "In [1]:" prompts and its heading
  permalinks go; a code cell's block says it is Python and an output's that it is text;
- a set of tabs (the CPU and CUDA outputs of a section): each tab's label goes at the top of its
  block, in bold (the plugin's own clean-up drops the row of labels);
- a ``|`` in a table cell (``None | Callable`` in an API entry's table) is escaped, ``\\|``,
  or the Markdown table would split the cell there;
- then the plugin's own clean-up (``mkdocs_llmstxt.autoclean``: permalinks, images and SVG,
  tab labels, mkdocstrings' labels), which mkdocs.yml turns off so that it runs here, after
  the steps above.

What thunder-traces adds to a printed trace is attributes and links, which the conversion
drops inside a code block: the block's text stays the text the code printed.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag
from mkdocs.exceptions import PluginError
from mkdocs_llmstxt import autoclean

from thunder_docs.plugins.diagrams.plugin import TEXTS

# What mkdocs-jupyter adds around a notebook's cells for the browser only.
NOTEBOOK_CHROME = ("zeroclipboard-container", "clipboard-copy-txt", "jp-InputPrompt", "jp-OutputPrompt", "anchor-link")


def preprocess(soup: BeautifulSoup, output: str) -> None:
    """Edit ``soup``, a page's HTML, in place; ``output`` is the Markdown copy's path (messages only)."""
    for placeholder in soup.select("div.diagram[data-diagram]"):
        text = TEXTS.get(placeholder["data-diagram"])
        if text is None:
            raise PluginError(f"{output}: a diagram thunder-diagrams did not find ({placeholder['data-diagram']})")
        placeholder.replace_with(mermaid_block(soup, text))
    for ref in soup.find_all("autoref"):
        ref.unwrap()
    for chrome in soup.find_all(class_=NOTEBOOK_CHROME):
        chrome.decompose()
    for pre in soup.select("div.highlight-ipynb > pre"):  # a code cell: class="highlight-ipynb hl-python"
        languages = [c[3:] for c in pre.parent["class"] if c.startswith("hl-")]
        pre["class"] = [f"language-{lang}" for lang in languages[:1]]
    for pre in soup.select("div.jp-RenderedText > pre"):  # a cell's printed output
        pre["class"] = ["language-text"]
    for tabs in soup.select("div.tabbed-set"):
        labels = [label.get_text(" ", strip=True) for label in tabs.select(":scope > .tabbed-labels > label")]
        blocks = tabs.select(":scope > .tabbed-content > .tabbed-block")
        for label, block in zip(labels, blocks, strict=True):
            heading = soup.new_tag("p")
            heading.append(soup.new_tag("strong", string=label))
            block.insert(0, heading)
    for cell in soup.find_all(["td", "th"]):
        for text in cell.find_all(string=lambda s: "|" in s):
            text.replace_with(text.replace("|", "\\|"))
    autoclean(soup)


def mermaid_block(soup: BeautifulSoup, text: str) -> Tag:
    """``<pre class="language-mermaid"><code>``: the conversion fences it as ```mermaid."""
    pre, code = soup.new_tag("pre", attrs={"class": "language-mermaid"}), soup.new_tag("code")
    code.string = text
    pre.append(code)
    return pre
