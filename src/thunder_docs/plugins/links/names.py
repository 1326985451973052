"""What a name that pages mention links to: its API reference entry, or its definition in Thunder."""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import cache

from thunder_docs.shared.thunder_source import Source, operator_source, thunder_version

# The API reference: canonical identifier (its mkdocstrings anchor) -> other names pages use.
API: dict[str, tuple[str, ...]] = {
    "thunder.core.trace.TraceCtx": ("TraceCtx",),
    "thunder.core.trace.tracectx": ("tracectx",),
    "thunder.core.trace.from_trace": ("from_trace",),
    "thunder.core.trace.TraceProvenance": ("TraceProvenance",),
    "thunder.core.trace.TraceTag": ("TraceTag",),
    "thunder.core.symbol.Symbol": ("Symbol",),
    "thunder.core.symbol.BoundSymbol": ("BoundSymbol",),
    "thunder.core.symbol.BoundSymbolTag": ("BoundSymbolTag",),
    "thunder.core.proxies.Proxy": ("Proxy",),
    "thunder.core.proxies.TensorProxy": ("TensorProxy",),
    "thunder.core.proxies.NumberProxy": ("NumberProxy",),
    "thunder.core.proxies.IntegerProxy": ("IntegerProxy",),
    "thunder.core.proxies.FloatProxy": ("FloatProxy",),
    "thunder.core.proxies.CollectionProxy": ("CollectionProxy",),
    "thunder.core.prims.PrimIDs": ("PrimIDs",),
    "thunder.core.codeutils.SigInfo": ("SigInfo",),
    "thunder.core.transform_common.Transform": ("Transform", "thunder.Transform"),
    "thunder.core.transforms.visitor_transform": ("visitor_transform",),
    "thunder.core.transforms.insert_inplace": ("insert_inplace",),
    "thunder.core.transforms.replace_inplace": ("replace_inplace",),
    "thunder.executors.passes.transform_for_execution": ("transform_for_execution",),
    "thunder.jit": (),
    "thunder.last_traces": ("last_traces",),
    "thunder.last_backward_traces": ("last_backward_traces",),
    "thunder.last_prologue_traces": ("last_prologue_traces",),
    "thunder.compile_stats": ("compile_stats",),
    "thunder.common.CompileStats": ("CompileStats",),
    "thunder.extend.Executor": ("Executor",),
    "thunder.extend.OperatorExecutor": ("OperatorExecutor",),
    "thunder.extend.FusionExecutor": ("FusionExecutor",),
    "thunder.extend.get_default_executors": ("get_default_executors", "thunder.get_default_executors"),
    "thunder.extend.get_always_executors": ("get_always_executors", "thunder.get_always_executors"),
    "thunder.examine": (),
    "thunder.examine.examine": (),
    "thunder.examine.get_fusions": ("get_fusions",),
    "thunder.examine.get_fusion_symbols": ("get_fusion_symbols",),
    "thunder.core.transforms.VISIT_TYPE": ("VISIT_TYPE",),
    "thunder.core.utils.producers": ("producers",),
    "thunder.core.utils.consumers": ("consumers",),
    "thunder.core.options.DebugOptions": ("DebugOptions", "thunder.DebugOptions"),
    "thunder.dev_utils.check_trace.check_trace": ("check_trace",),
    "thunder.core.trace_interpreter.interpret_trace": ("interpret_trace",),
    "thunder.core.trace_interpreter.TraceSubstitutionProcessor": ("TraceSubstitutionProcessor",),
    "thunder.extend.register_executor": ("register_executor",),
    "thunder.extend.get_executor": ("get_executor",),
    "thunder.core.prims.get_grad": ("get_grad",),
    "thunder.core.transforms.put_grads": ("put_grads",),
    "thunder.core.module.ThunderModule": ("ThunderModule",),
    "thunder.dynamo.compiler.thunderfx": ("thunderfx", "thunder.dynamo.thunderfx"),
    "thunder.dynamo.compiler.ThunderCompiler": ("ThunderCompiler", "thunder.dynamo.ThunderCompiler"),
    "thunder.dynamo.compiler.ThunderFXCompiledObject": ("ThunderFXCompiledObject",
                                                        "thunder.dynamo.ThunderFXCompiledObject"),
    "thunder.dynamo.utils.SubgraphInfo": ("SubgraphInfo",),
    "thunder.dynamo.utils.SplitReason": ("SplitReason",),
    "thunder.dynamo.utils.SplitReasonType": ("SplitReasonType",),
    "thunder.dynamo.report.fx_report": ("fx_report",),
    "thunder.dynamo.report.FXReport": ("FXReport",),
    "thunder.dynamo.report.FXGraphReport": ("FXGraphReport",),
    "thunder.dynamo.report.analyze_thunder_splits": ("analyze_thunder_splits",),
    "thunder.dynamo.report.ThunderFXGraphReport": ("ThunderFXGraphReport",),
    "thunder.dynamo.report.ThunderSplitGraphReport": ("ThunderSplitGraphReport",),
    "thunder.last_interpreter_log": ("last_interpreter_log",),
    "thunder.print_last_interpreter_log": ("print_last_interpreter_log",),
    "thunder.compile_data": ("compile_data",),
    "thunder.pytorch_executor": (),
}

NAMES: dict[str, str] = {name: ident for ident, names in API.items() for name in (ident, *names)}

# Printed prefixes of Thunder's operators -> the module that defines them.
OPERATOR_MODULES = {
    "ltorch": "thunder.torch",
    "thunder.torch": "thunder.torch",
    "prims": "thunder.core.prims",
    "thunder.core.prims": "thunder.core.prims",
}
# In a printed trace, torch.X is the torch executor's symbol for torch.X.
OUTPUT_MODULES = {**OPERATOR_MODULES, "torch": "thunder.executors.torchex"}


@dataclass(frozen=True)
class Target:
    identifier: str | None = None  # an autorefs identifier
    source: Source | None = None
    optional: bool = False

    @property
    def key(self) -> str:
        """What the link goes to: two names with the same key are the same target."""
        return self.identifier or self.source.url

    def wrap(self, inner: str) -> str:
        if self.identifier:
            optional = " optional" if self.optional else ""
            return f'<autoref identifier="{self.identifier}"{optional}>{inner}</autoref>'
        title = html.escape(f"{self.source.path}:{self.source.line} (Thunder {thunder_version()})")
        return f'<a class="thunder-source" href="{self.source.url}" title="{title}">{inner}</a>'


@cache
def resolve(name: str, *, output: bool = False) -> tuple[int, Target] | None:
    """What the dotted ``name`` links to, and how many characters of it the link covers.

    An API name links to its entry (its members to theirs, if the reference shows them);
    an operator to its source. ``output``: the name is in printed output, where a trace's
    ``torch.X`` is the torch executor's symbol.
    """
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in NAMES:
            ident = NAMES[head]
            if cut == len(parts):
                return len(name), Target(ident)
            if any(part.startswith("_") for part in parts[cut:]):
                return None  # a private member has no entry
            member = ".".join([ident, *parts[cut:]])
            return len(name), Target(member, optional=True)
    modules = OUTPUT_MODULES if output else OPERATOR_MODULES
    for cut in range(len(parts), 1, -1):
        head = ".".join(parts[:cut])
        source = operator_source(head, modules)
        if source:
            return len(head), Target(source=source)
    return None
