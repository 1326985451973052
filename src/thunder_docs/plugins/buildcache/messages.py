"""What a piece of work said while it ran: whether its result may be kept and reused.

A cached result is reused without running the work again, so what the work would have said
(a broken link, a deprecation, nbconvert's "alternative text is missing") would be said on
the first build only. ``Messages`` watches the work: log records of level INFO and above
(MkDocs' and ProperDocs' loggers, which do not propagate, and the root logger), and Python
warnings, which are shown as usual once the work is done. A result is kept only if the work
said nothing, and only if INFO records could be seen at all: ``mkdocs build -q``, or a build
in a process whose logging stays at WARNING, would not create them.
"""

from __future__ import annotations

import logging
import warnings

# The root logger, MkDocs' (which does not propagate) and ProperDocs': under ProperDocs "mkdocs" is a
# child of "properdocs", which does not propagate, and its own modules and get_plugin_logger log below it.
LOGGERS = ("", "mkdocs", "properdocs")


class _Handler(logging.Handler):
    def __init__(self, records: list[logging.LogRecord], progress: tuple[str, str] | None):
        super().__init__(logging.INFO)
        self.records, self.progress = records, progress

    def emit(self, record: logging.LogRecord) -> None:
        if self.progress and record.levelno == logging.INFO and record.name == self.progress[0] \
                and record.getMessage().startswith(self.progress[1]):
            return  # the work saying that it runs: not said when its result is reused, rightly
        if not self.records or self.records[-1] is not record:  # one record met again on a parent logger
            self.records.append(record)


class Messages:
    """``with Messages() as said: work()``; then ``said.keep`` tells whether to keep its result.

    ``progress``: (logger, start of the message) of an INFO line in which the work only says
    that it runs, such as mkdocs-jupyter's "Converting notebook"; it does not count.
    """

    def __init__(self, progress: tuple[str, str] | None = None) -> None:
        self.records: list[logging.LogRecord] = []
        self.warnings: list[warnings.WarningMessage] = []
        self._handler = _Handler(self.records, progress)
        self._catcher: warnings.catch_warnings | None = None
        self._listening = False

    def __enter__(self) -> Messages:
        self._listening = logging.getLogger("mkdocs").getEffectiveLevel() <= logging.INFO
        for name in LOGGERS:
            logging.getLogger(name).addHandler(self._handler)
        self._catcher = warnings.catch_warnings(record=True)
        self.warnings = self._catcher.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        for name in LOGGERS:
            logging.getLogger(name).removeHandler(self._handler)
        assert self._catcher is not None
        self._catcher.__exit__(*exc)
        for w in self.warnings:  # shown as they would have been
            warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)

    @property
    def keep(self) -> bool:
        return self._listening and not self.records and not self.warnings
