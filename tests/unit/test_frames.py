"""Your line, for every operation (explain/frames.py, explain/yours.py): which frames a chain keeps,
which are the user's, and how a printed line finds its chain (by the position object Thunder
recorded, never by a name)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from thunder_docs.explain import frames, yours
from thunder_docs.explain.frames import Frame, Noted, callers, chains_of, interpreted, is_yours, make_chain
from thunder_docs.explain.report import Block
from thunder_docs.shared.trace_map import Line, TraceMap

SITE = "/usr/lib/python3.12/site-packages"


def tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A user's folder with a script, a package beside it (site-packages) and the explorer's own code."""
    root = tmp_path / "work"
    (root / "train.py").parent.mkdir(parents=True)
    (root / "train.py").write_text("import torch\n\nout = model(x)\n")
    (root / "layers.py").write_text("def block(x):\n    return self.fc1(x)\n")
    own = root / "src" / "thunder_docs"
    own.mkdir(parents=True)
    (root / ".venv/lib/python3.12/site-packages/torch").mkdir(parents=True)
    return root, own, root / ".venv/lib/python3.12/site-packages/torch/linear.py"


def test_the_users_files_are_in_the_folder_and_in_no_package(tmp_path):
    root, own, torch_file = tree(tmp_path)
    assert is_yours(str(root / "train.py"), root, own)
    assert is_yours("train.py", root, own) is (Path.cwd().resolve() / "train.py").is_relative_to(root)
    assert not is_yours(str(torch_file), root, own)  # a package, even inside the folder (.venv)
    assert not is_yours(str(own / "explain/cli.py"), root, own)  # the explorer's own runner
    assert not is_yours("<eval_with_key>.3", root, own) and not is_yours("<string>", root, own)
    assert not is_yours(f"{SITE}/torch/nn/modules/linear.py", root, own)


def test_the_callers_are_the_innermost_run_of_the_users_frames_outermost_first(tmp_path):
    root, own, torch_file = tree(tmp_path)
    stack = [  # Python's stack when Thunder recorded a line, innermost first
        (f"{SITE}/thunder/core/jit_ext.py", 396, "wrapper"),
        (f"{SITE}/torch/nn/modules/module.py", 1773, "Module._wrapped_call_impl"),
        (str(root / "layers.py"), 2, "block"),
        (str(root / "train.py"), 3, "<module>"),
        ("<frozen runpy>", 88, "_run_code"),
        (str(own / "explain/cli.py"), 120, "run"),
        (str(root / "train.py"), 9, "<module>"),  # beyond the runner: not a caller of this call
    ]
    assert callers(stack, root, own) == [stack[3], stack[2]]
    assert callers(stack[:2], root, own) == []


def test_the_interpreted_frames_leave_out_thunders_own_and_the_module_call_steps():
    stack = [
        ("thunder/core/interpreter.py", 7530, "interpret.<locals>.fn_", "thunder.core.interpreter"),
        ("torch/nn/modules/module.py", 1773, "Module._wrapped_call_impl", "torch.nn.modules.module"),
        ("torch/nn/modules/module.py", 1784, "Module._call_impl", "torch.nn.modules.module"),
        ("train.py", 14, "Model.forward", "__main__"),
        ("thunder/core/interpreter.py", 6858, "_call_dispatch.<locals>._impl", "thunder.core.interpreter"),
        ("torch/nn/modules/module.py", 500, "Module.register_buffer", "torch.nn.modules.module"),
        ("torch/nn/modules/linear.py", 125, "Linear.forward", "torch.nn.modules.linear"),
    ]
    assert interpreted(stack) == [("train.py", 14, "Model.forward"), ("torch/nn/modules/module.py", 500,
                                   "Module.register_buffer"), ("torch/nn/modules/linear.py", 125, "Linear.forward")]


def test_a_chain_names_each_frame_with_its_line_and_says_which_are_the_users(tmp_path):
    root, own, torch_file = tree(tmp_path)
    torch_file.write_text("\n" * 124 + "        return F.linear(input, self.weight, self.bias)\n")
    chain = make_chain([(str(root / "train.py"), 3, "<module>")],
                       [(str(root / "layers.py"), 2, "block"), (str(torch_file), 125, "Linear.forward")], root, own)
    assert [f.shown() for f in chain] == ["train.py:3  out = model(x)", "layers.py:2  return self.fc1(x)",
                                          "site-packages/torch/linear.py:125  return F.linear(input, self.weight, self.bias)"]
    assert [f.yours for f in chain] == [True, True, False]
    assert frames.shown(chain) and frames.your_lines(chain) == ("train.py:3", "layers.py:2")
    assert not frames.shown(chain[:2])  # recorded on the user's own line: its source comment says it all
    assert not frames.shown(chain[2:])  # no frame of the user's: nothing to add


@dataclass
class Proxy:
    name: str


@dataclass
class Bsym:
    outs: list
    source_positions: object = None
    flat_proxy_outs: list = field(init=False)

    def __post_init__(self):
        self.flat_proxy_outs = [Proxy(n) for n in self.outs]


@dataclass
class Trace:
    bound_symbols: list


class Positions:
    """A stand-in for dis.Positions: two calls of one line are two objects that compare equal."""

    def __eq__(self, other):
        return isinstance(other, Positions)

    __hash__ = object.__hash__


def noted(tmp_path) -> tuple[Noted, Positions, Positions, Path]:
    root, own, torch_file = tree(tmp_path)
    fc1, fc2 = Positions(), Positions()
    found = Noted(root)
    found.note(fc1, [(str(root / "train.py"), 3, "<module>")], [(str(torch_file), 125, "Linear.forward")])
    found.note(fc2, [(str(root / "layers.py"), 2, "block")], [(str(torch_file), 125, "Linear.forward")])
    return found, fc1, fc2, root


def test_a_printed_line_finds_its_chain_by_its_bound_symbols_position_object(tmp_path):
    found, fc1, fc2, root = noted(tmp_path)
    trc = Trace([Bsym(["t4"], fc1), Bsym(["t9"], fc2), Bsym(["t10"], Positions())])
    lines = (Line(0, 0, "source", source="site-packages/torch/linear.py:125"),
             Line(1, 0, "op", defines=("t4",)), Line(2, 0, "op", defines=("t4",), depth=1),
             Line(3, 0, "op", defines=("t9",)), Line(4, 0, "op", defines=("t10",)), Line(5, 0, "op", depth=1))
    chains = chains_of(trc, lines, found)
    assert [f.where for f in chains[1]] == ["train.py:3", "site-packages/torch/linear.py:125"]
    assert chains[0] == chains[2] == chains[1]  # its source comment and its subsymbol line
    assert [f.where for f in chains[3]] == ["layers.py:2", "site-packages/torch/linear.py:125"]
    assert 4 not in chains and 5 not in chains  # an equal position, another object: nothing noted for it


def test_a_position_noted_with_two_chains_gets_none_and_nothing_noted_gets_nothing(tmp_path):
    found, fc1, _, root = noted(tmp_path)
    found.note(fc1, [(str(root / "layers.py"), 2, "block")], [])
    assert len(found.chains(fc1)) == 2
    trc = Trace([Bsym(["t4"], fc1)])
    assert chains_of(trc, (Line(0, 0, "op", defines=("t4",)),), found) == {}
    assert chains_of(trc, (Line(0, 0, "op", defines=("t4",)),), Noted(root)) == {}
    assert chains_of(trc, (Line(0, 0, "op", defines=("t4",)),), None) == {}


def block_with_chain() -> Block:
    chain = (Frame("train.py", 3, "<module>", "out = model(x)", True),
             Frame("site-packages/torch/linear.py", 125, "Linear.forward", "return F.linear(x)", False))
    own = (Frame("train.py", 3, "<module>", "out = model(x)", True),)
    text = "  # site-packages/torch/linear.py:125: return F.linear(x)\n  t4 = linear(x)\n  t5 = relu(t4)"
    lines = (Line(0, 0, "source"), Line(1, 0, "op", defines=("t4",)), Line(2, 0, "op", defines=("t5",)))
    return Block("the computation trace that runs (the last of 3)", text, TraceMap((), lines),
                 chains={0: chain, 1: chain, 2: own})


def test_the_line_map_gets_the_users_lines_and_the_chain_where_it_says_more():
    rows = yours.extras(block_with_chain())
    assert rows[1] == {"u": "train.py:3", "c": "train.py:3  out = model(x)\n→ site-packages/torch/linear.py:125  "
                                                 "return F.linear(x)"}
    assert rows[2] == {"u": "train.py:3"}  # recorded on the user's line: the comment says it


def test_a_library_lines_comment_links_to_the_users_line_when_the_page_shows_it():
    block = block_with_chain()
    ident, title = yours.link_of(block.chains[0], {"src-train-3"})
    assert ident == "src-train-3" and title.endswith("train.py:3 → site-packages/torch/linear.py:125")
    assert yours.link_of(block.chains[0], set()) is None
    assert yours.link_of(block.chains[2], {"src-train-3"}) is None


def test_each_users_line_lists_every_operation_it_produced_with_a_link():
    block = block_with_chain()
    ids = yours.op_ids(block, 7)
    assert ids == {1: "op-7-1", 2: "op-7-2"}  # top-level op lines, not the comment
    made = yours.made_by([("f, compilation 1, the computation trace", block, ids)])
    assert [(m.ident, m.text, m.where) for m in made["train.py:3"]] == [
        ("op-7-1", "t4 = linear(x)", "site-packages/torch/linear.py:125"), ("op-7-2", "t5 = relu(t4)", "train.py:3")]
    html = yours.listing("train.py:3", made["train.py:3"])
    assert html.startswith('<details class="ops" id="ops-src-train-3"><summary><code>train.py:3</code>: 2 operations')
    assert '<a href="#op-7-1"><code>t4 = linear(x)</code></a>' in html
