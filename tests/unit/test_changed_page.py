"""thunder-exec's error for a page whose Markdown is not the text the build executed."""

from __future__ import annotations

from thunder_docs.plugins.exec.plugin import why_changed

BODY = "# A page\n\nText.\n"


def test_a_file_edited_during_the_build_is_named_as_such(tmp_path):
    source = tmp_path / "page.md"
    source.write_text("# A page\n\nText, edited.\n")
    assert why_changed("docs/page.md", BODY, source) == (
        "thunder-exec: docs/page.md changed on disk while the build ran, after its code was executed: build again")


def test_a_file_that_is_unchanged_on_disk_blames_a_plugin_before_thunder_exec(tmp_path):
    source = tmp_path / "page.md"
    source.write_text("---\ntitle: A page\n---\n" + BODY)  # front matter is not part of the body
    assert "was changed by a plugin listed before thunder-exec" in why_changed("docs/page.md", BODY, source)
