"""``lift``: from a loop function and examples to a verified program.

For each target (temporaries first, in source order; then the outputs)
the guide builds the statement's weighted grammar from the source, the
search enumerates it in cost order on small inputs until a program equals
the loop code's value, and the whole program is then verified on fresh
inputs; a counterexample joins the search's inputs and the search runs
again (at most three rounds). A temporary that cannot be lifted within
its share of the time is left out (its readers are searched without it).
"""

from __future__ import annotations

import ast
import time
from typing import Callable

import numpy as np
from lazytensor.lift import grammar as G
from lazytensor.lift import terms as T
from lazytensor.lift.dataflow import define_element, define_locals
from lazytensor.lift.inputs import Spec, draw, infer_spec
from lazytensor.lift.legacy import as_input, run_legacy
from lazytensor.lift.plan import Mismatch, analyze, example_env, goal, is_size, module_env, wide
from lazytensor.lift.plan import space as make_space
from lazytensor.lift.program import LiftedProgram, Statement
from lazytensor.lift.search import Search
from lazytensor.lift.source import SourceError, function_source, read_source
from lazytensor.lift.translate import Scope, Untranslatable, fragments, translate
from lazytensor.lift.verify import verify

SEARCH_INPUTS = 3  # small generated inputs the search checks candidates on
SMALL = 64  # user examples with at most this many elements per argument join them


class LiftError(Exception):
    """No verified program: says why and how far the search got."""


def lift(fn: Callable, examples, time_limit: float = 60.0, *, proposer=None,
         uniform: bool = False, fragments: bool = True, seed: int = 0,
         fresh: int = 20) -> LiftedProgram:
    """A program in index notation equal to the loop function ``fn``.

    ``examples``: argument tuples (numpy arrays; scalars as 0-d arrays).
    ``proposer``: optional callable ``(source_text) -> list[str]`` of
    candidate programs in the printed notation (where an LLM would plug
    in); their terms weigh heavily in the grammar. ``uniform``: the
    ablation, every production weighs the same; ``fragments=False``: the
    grammar has only one-level productions (no source sub-expression as a
    production of its own). Raises ``LiftError``.
    """
    started = time.monotonic()
    deadline = started + time_limit
    examples = [tuple(as_input(x) for x in ex) for ex in examples]
    if not examples:
        raise LiftError(f"lift({fn.__name__}): no examples given")
    try:
        text = function_source(fn)
        src = read_source(text)
        runs = [_run_example(fn, ex, k) for k, ex in enumerate(examples)]
        analysis = analyze(fn, src, runs[0])
    except SourceError as exc:
        raise LiftError(f"lift({fn.__name__}): {exc}") from None
    proposals = _proposals(proposer, text, [n for n, t in analysis.size_defs if is_size(t)])
    spec = infer_spec(examples, _boundaries(src))
    rng = np.random.default_rng(seed)
    search_runs = _search_runs(fn, spec, examples, rng)
    total, searching = 0, 0.0
    for _ in range(3):
        program, candidates, seconds = _search_all(fn, analysis, search_runs, deadline,
                                                   proposals, (uniform, fragments),
                                                   time_limit)
        total += candidates
        searching += seconds
        program.report.search_seconds = searching
        verification, counter = verify(program, fn, spec, rng, fresh)
        program.verification = verification
        program.report.candidates = total
        program.report.seconds = time.monotonic() - started
        if counter is None and verification.passed:
            return program
        if counter is None or time.monotonic() > deadline:
            break
        search_runs.append(run_legacy(fn, counter))
    raise LiftError(f"lift({fn.__name__}): the best program found failed verification "
                    f"({total} candidates):\n{program}")


def _run_example(fn, example, k: int):
    try:
        return run_legacy(fn, example)
    except Exception as exc:
        raise LiftError(f"lift({fn.__name__}): the loop code raised on example {k}: "
                        f"{type(exc).__name__}: {exc}") from None


def _proposals(proposer, text: str, sizes) -> list:
    if proposer is None:
        return []
    from lazytensor.lift.textform import parse_program
    out = []
    for candidate in proposer(text) or ():
        try:
            out.extend(parse_program(candidate, sizes))
        except (SyntaxError, ValueError):
            continue
    return out


def _boundaries(src) -> list[float]:
    out = []
    for node in ast.walk(ast.parse(src.text)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and isinstance(side.value, (int, float)) \
                        and not isinstance(side.value, bool):
                    out.append(float(side.value))
    return out


def _search_runs(fn, spec: Spec, examples, rng) -> list:
    runs = [run_legacy(fn, ex) for ex in examples if all(np.size(x) <= SMALL for x in ex)]
    wanted = SEARCH_INPUTS + max(0, 2 - len(runs))
    for attempt in range(40):
        if wanted <= 0:
            break
        sizes = spec.draw_sizes(rng, 2 + attempt // 10, 6 + attempt // 10)
        if sizes is None:
            break
        try:
            runs.append(run_legacy(fn, draw(spec, rng, sizes, "random")))
            wanted -= 1
        except Exception:
            continue
    if not runs:
        runs = [run_legacy(fn, examples[0])]
    return runs


def _search_all(fn, analysis, runs, deadline, proposals, variant, time_limit):
    statements, available, notes = [], list(analysis.source.args), {}
    candidates, seconds = 0, 0.0
    sizes = [n for n, t in analysis.size_defs if is_size(t)]
    for target in analysis.targets:
        left = deadline - time.monotonic()
        budget = min(left * 0.25, 5.0) if target.role == "temp" else left
        try:
            found, stats, dtype = _lift_target(analysis, target, runs, available, sizes,
                                               budget, proposals, variant)
        except (Mismatch, SourceError, KeyError) as exc:
            if target.role == "temp":
                notes[target.name] = f"skipped ({exc})"
                continue
            raise LiftError(f"lift({fn.__name__}): {exc}") from None
        candidates += stats.candidates
        seconds += stats.seconds
        if found is None:
            if target.role == "temp":
                notes[target.name] = f"not lifted (cost <= {stats.cost} bits searched)"
                continue
            done = [s.name for s in statements]
            raise LiftError(
                f"lift({fn.__name__}): no program for `{target.name}` within {time_limit:g} s: "
                f"searched every candidate up to cost {stats.cost} bits ({stats.candidates} "
                f"candidates, {stats.kept} distinct values) over {', '.join(target.order) or 'no'}"
                f" loop variables; lifted so far: {', '.join(done) or 'nothing'}")
        statements.append(Statement(target.name, found, target.order,
                                    tuple(target.ranges.items()), target.lhs, target.flat,
                                    dtype, target.lhs_text))
        notes[target.name] = f"cost {stats.found_cost} bits, {stats.candidates} candidates"
        if target.role == "temp":
            available.append(target.name)
    statements = _used(statements, analysis)
    src = analysis.source
    inplace = [t.name for t in analysis.targets if t.role == "inplace"]
    program = LiftedProgram(src.name, src.args, analysis.size_defs,
                            module_env(analysis.globals), statements, analysis.outputs,
                            analysis.returns, inplace)
    program.report.per_target = notes
    return program, candidates, seconds


def _used(statements: list[Statement], analysis) -> list[Statement]:
    """The statements that the outputs read (directly or through temporaries)."""
    needed = {t.name for t in analysis.targets if t.role != "temp"}
    keep = []
    for st in reversed(statements):
        if st.name in needed:
            keep.append(st)
            needed |= {t.attr[0] for t in st.term.walk() if t.kind == T.ACC}
    return keep[::-1]


def target_value(analysis, name: str, run):
    if name in analysis.result_names:
        result = run.result
        return result[analysis.result_names[name]] if analysis.returns == "tuple" else result
    if name in analysis.source.args:
        return run.after[analysis.source.args.index(name)]
    if name in run.locals:
        return run.locals[name]
    raise Mismatch(f"{name} has no value after the loops")


def _lift_target(analysis, target, runs, available, sizes, budget, proposals, variant):
    spaces, goals = [], []
    for run in runs:
        env = example_env(analysis, [a.shape for a in run.inputs])
        tensors = {a: wide(x) for a, x in zip(analysis.source.args, run.inputs, strict=True)}
        for name in available:
            if name not in tensors:
                tensors[name] = wide(np.asarray(run.locals[name]))
        sp = make_space(analysis, target, env, tensors)
        spaces.append(sp)
        goals.append(goal(target, target_value(analysis, target.name, run), sp))
    value = np.asarray(target_value(analysis, target.name, runs[0]))
    kind = "i" if value.dtype.kind in "biu" else "f"
    evidence = _evidence(analysis, target, available, spaces[0], proposals)
    ranks = {n: spaces[0].tensors[n].ndim for n in available}
    g = G.build(evidence, target.order, ranks, sizes, *variant)
    search = Search(g, spaces, goals, kind, frozenset(target.lhs), time.monotonic() + budget)
    return search.run(), search.stats, value.dtype


def _evidence(analysis, target, available, sp, proposals) -> G.Evidence:
    blocked = set(available) | set(sp.env) | set(target.order)
    scope = Scope(set(available), set(target.order), {}, sp.env,
                  aliases={k: v for k, v in analysis.copies.items() if v in available})
    scope.scans = {id(loop) for s in target.stores if s.target == target.name
                   for loop in s.loops if loop.var in target.lhs}
    running = _running(analysis.source, target.stores, scope.scans)
    running.pop(target.name, None)
    scope.tensors -= set(running)
    scalars = {s.target for s in target.stores if s.index is None} - (blocked - set(running))
    inits = [s for s in running.values() if s not in target.stores]
    define_locals(target.stores + inits, scope,
                  scalars | ({target.name} - blocked))
    ev = G.Evidence(reductions=set(target.reductions))
    whole = scope.inline.get(target.name) if not target.lhs else define_element(
        target.stores, scope, target.name, target.lhs, target.role == "inplace",
        analysis.copies.get(target.name))
    if whole is not None:
        ev.add(whole, 2 * G.W_FRAGMENT)
    fresh_vars = [v for v in target.lhs if v.startswith("bin")]
    for store in target.stores:
        for t in fragments(store.value, scope):
            ev.add(t)
        for cond in store.conds:
            for t in fragments(cond, scope):
                ev.add(t)
        if store.target == target.name and store.index is not None and store.op:
            _update_evidence(ev, store, target, scope, fresh_vars)
    for st in proposals:
        if st.name == target.name:
            for sub in st.term.walk():
                ev.add(sub, G.W_PROPOSED)
    return ev


def _running(src, stores, scans) -> dict:
    """Scalars updated inside a loop that the target's own stores run in
    (``acc += x[i]; out[i] = acc``): their value there is a running one, so
    they are read from the loop body (with their initial store before the
    loop) rather than as the lifted temporary's final value."""
    out = {}
    for store in stores:
        if store.index is None and store.op and any(id(lp) in scans for lp in store.loops):
            init = [s for s in src.stores_to(store.target)
                    if s.op is None and not s.loops and s.order < store.order]
            if init:
                out[store.target] = init[-1]
    return out


def _update_evidence(ev, store, target, scope, fresh_vars) -> None:
    """``t[idx] += v``: the old value ``t[idx]`` of an argument updated in
    place, and for a data-dependent ``idx`` the scatter ``where(idx == b, v, 0)``."""
    load = ast.Subscript(ast.Name(store.target, ast.Load()),
                         ast.Tuple(list(store.index), ast.Load()), ast.Load())
    try:
        if target.role == "inplace":
            ev.add(translate(load, scope))
        if fresh_vars and len(store.index) == 1:
            idx, val = translate(store.index[0], scope), translate(store.value, scope)
            ev.add(T.where(T.compare("eq", idx, T.var(fresh_vars[0])), val, T.const(0)),
                   G.W_FRAGMENT * 2)
            for t in fragments(store.index[0], scope):
                ev.add(t)
    except Untranslatable:
        return
