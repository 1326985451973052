"""The plugin's state belongs to one build: a second build with the same plugin object (as a
plugin that lives through `mkdocs serve` would see) starts from nothing."""

from mkdocs.commands.build import build
from mkdocs.config import load_config

SNIPPET = '# --8<-- [start:a]\nprint("{name} ran")\n# --8<-- [end:a]\n'


def page(name: str) -> str:
    return f'# {name}\n\n```python\n--8<-- "snippets/{name}.py:a"\n```\n'


def test_a_second_build_does_not_see_the_first_ones_state(throwaway):
    files = {f"docs/{n}.md": page(n) for n in ("one", "two")} | {f"snippets/{n}.py": SNIPPET.format(name=n)
                                                                  for n in ("one", "two")}
    throwaway.write(files)
    config = load_config(str(throwaway.folder / "mkdocs.yml"), site_dir=str(throwaway.folder / "site"))
    plugin = config.plugins["thunder-exec"]
    build(config)
    first = plugin.site
    assert set(first.pages) == {"one.md", "two.md"} and len(plugin.stats.runs) == 1
    assert first.results.output("cpu", "docs/two.md", first.page("two.md").sections) == "two ran"

    (throwaway.folder / "docs" / "two.md").unlink()
    build(config)
    assert plugin.site is not first and set(plugin.site.pages) == {"one.md"}
    assert len(plugin.stats.runs) == 1, "the stats of the first build were kept"
    assert not plugin.site.results.has("cpu", "docs/two.md")
