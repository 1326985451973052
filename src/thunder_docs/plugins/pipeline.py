"""The build's pipeline: in which order MkDocs calls each plugin's hooks, and why that order.

MkDocs calls the hooks of one event by priority (``@event_priority``, 0 by default), then in the
order of ``plugins`` in ``mkdocs.yml``. No one file shows the resulting sequence, so it is
written here, event by event, with what each of our hooks does there and what it needs from
the ones before it; ``tests/unit/test_pipeline.py`` loads ``mkdocs.yml`` and asserts that MkDocs
calls them in exactly this order (the other plugins' hooks too: an upgrade of one that moves a
hook fails there). ``plugin@N`` is a hook with priority N.
"""

from __future__ import annotations

PIPELINE: dict[str, tuple[tuple[str, str], ...]] = {
    "startup": (
        ("material/search", ""),
    ),
    "serve": (
        ("material/search", ""),
        ("thunder-exec", "watch snippets/ too; start the forkserver ahead of the first edit"),
    ),
    "config": (
        ("material/search", ""),
        ("thunder-buildcache", "where its caches live"),
        ("thunder-exec", "cache folders usable, attr_list present; point pymdownx.snippets at the repository"),
        ("thunder-explore", "start running the explorer on its scripts, in a thread, while thunder-exec executes"),
        ("thunder-cite", "open its store"),
        ("thunder-links", "open its store"),
        ("thunder-traces", "open its store"),
        ("thunder-diagrams", "find Mermaid and the drawings folder"),
        ("mkdocs-jupyter", ""),
        ("autorefs", ""),
        ("mkdocstrings", ""),
        ("llmstxt", "the site's address, from which the copies' links are made absolute"),
    ),
    "pre_build": (
        ("mkdocs-jupyter", ""),
    ),
    "files": (
        ("thunder-exec@100", "build the site model (every plugin after reads it: site_of), execute every page and "
                             "notebook, compare with the approved output: all before any page is rendered"),
        ("thunder-buildcache", "install the search, highlight, notebook and Markdown copy caches"),
        ("material/meta", ""),
        ("thunder-explore", "wait for the explorer's pages and add them as explore/<name>.html"),
        ("thunder-links", "its script"),
        ("thunder-traces", "its script and stylesheet"),
        ("thunder-taborder", "its script"),
        ("thunder-lazyhighlight", "its script"),
        ("thunder-diagrams", "its script and stylesheet; draw new diagrams (reads the model: graph= drawings)"),
        ("thunder-downloads", "a notebook download of each page with code (reads the model)"),
        ("mkdocs-jupyter", ""),
        ("thunder-refcache", "install the API reference cache (after mkdocstrings is configured)"),
        ("llmstxt", "the pages each section of llms.txt lists (mkdocs.yml)"),
    ),
    "nav": (
        ("thunder-buildcache", "every plugin has added its files: install the page cache, whose key covers them"),
    ),
    "env": (
        ("mkdocstrings@50", ""),
        ("thunder-buildcache", "the template cache"),
        ("mkdocstrings@-20", ""),
        ("mkdocstrings@-20", ""),
        ("autorefs@-50", ""),
        ("mkdocstrings@-100", ""),
    ),
    "pre_page": (
        ("thunder-exec@100", "hand mkdocs-jupyter the executed copy of a notebook, before it reads the file"),
        ("thunder-buildcache", "wrap the page's render in the page cache"),
        ("mkdocs-jupyter", ""),
    ),
    "page_read_source": (
        ("mkdocs-jupyter", ""),
    ),
    "page_markdown": (
        ("mkdocs-jupyter@100", ""),
        ("material/meta@50", ""),
        ("thunder-exec", "each include's output block, with its identifier (render.py)"),
        ("thunder-cite", "[[thunder/...]] citations to links (leaves the output blocks alone: fences)"),
        ("autorefs", ""),
    ),
    "page_content": (
        ("thunder-exec@20", "a notebook page: its appended style fixed, the glossary's tooltips on its Markdown cells "
                            "(before thunder-links, as on a Markdown page)"),
        ("thunder-links@10", "parse the page's HTML once (shared/page_html.py) and link API names in prose and "
                             "code on that parse (the traces plugin wraps lines around these links)"),
        ("thunder-traces@5", "mark printed traces up on the same parse, finding each block by its identifier"),
        ("thunder-lazyhighlight@4", "each block's layout from that parse, if this build made one, for on_post_page; "
                                    "let the parse go (the plugins after change the HTML as text)"),
        ("thunder-taborder", "permalinks out of the Tab order"),
        ("thunder-downloads", "the download link under the title"),
        ("mkdocs-jupyter", ""),
        ("autorefs", ""),
        ("llmstxt", "last: the page's Markdown copy, from its HTML as every hook before left it; diagrams "
                    "are still placeholders, cross-references unresolved (plugins/llms/preprocess.py); "
                    "the copy's key in thunder-buildcache's cache is that HTML"),
    ),
    "page_context": (
        ("material/search", ""),
    ),
    "post_page": (
        ("thunder-links", "autorefs' link titles"),
        ("thunder-traces", "its script and stylesheet on pages with traces; the steppers' traces to files"),
        ("thunder-taborder", "its script"),
        ("thunder-diagrams", "its script and stylesheet on pages with diagrams"),
        ("mkdocs-jupyter", ""),
        ("thunder-lazyhighlight@-100", "last: large code blocks deferred, on the page as it is written, each block "
                                       "read from its layout unless it changed since (autorefs' links aside)"),
    ),
    "post_build": (
        ("material/search", ""),
        ("thunder-buildcache", "its counts"),
        ("mkdocs-jupyter", ""),
        ("mkdocstrings", ""),
        ("thunder-refcache", "its counts"),
        ("llmstxt", "write llms.txt, llms-full.txt and each page's copy (<page>/index.md)"),
    ),
    "build_error": (
        ("thunder-buildcache", "a failed build keeps nothing it half-made"),
        ("thunder-explore", "end the explorer's runs: nothing the build started outlives it"),
    ),
}


def order(pipeline=PIPELINE) -> dict[str, list[str]]:
    """Each event's hooks in the order MkDocs calls them, as ``plugin`` or ``plugin@priority``."""
    return {event: [name for name, _ in hooks] for event, hooks in pipeline.items()}
