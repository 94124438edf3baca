"""MLIR text of a sized generator model (see `model.py`).

Layout: module-level globals, then private helper functions (callees of calls, functions that
return their argument), then the kernel. With `alias_pairs` the statements go into a private
`@kernel_body` and the public `@kernel` calls it, passing one buffer for two parameters.
"""
from __future__ import annotations

import re

from .model import (ALIAS_KINDS, AllocOp, BlockSplit, Buffer, CallOp, Contraction, DeallocOp, GlobalOp, Idx, Loop, Nest,
                    RowLoss, TransposeCopy,
                    Probe, Product, Program, Region, ReshapeOp, ScalarOp, View, ViewOp)


def memref_type_text(ref, elem: str) -> str:
    """The MLIR type of a buffer or view after sizing."""
    if isinstance(ref, Buffer):
        return f"memref<{'x'.join(str(d) for d in ref.shape)}x{ref.elem or elem}>"
    if ref.kind == "reshape":
        return f"memref<?x{elem}>" if ref.dynamic and ref.dynamic[0] else f"memref<{ref.shape[0]}x{elem}>"
    if ref.kind in ALIAS_KINDS:
        if ref.dynamic_alias:
            return f"memref<{'x'.join('?' for _ in range(ref.rank))}x{elem}>"
        return memref_type_text(ref.alts[0], elem)
    if ref.kind == "get_global":
        return memref_type_text(ref.of, elem)
    base = ref.of.shape
    if ref.kind == "cast":
        dims = ["?" if dyn else str(d) for d, dyn in zip(base, ref.dynamic)]
        return f"memref<{'x'.join(dims)}x{elem}>"
    strides = [1] * len(base)
    for d in range(len(base) - 2, -1, -1):
        strides[d] = strides[d + 1] * base[d + 1]
    offset = sum(o * s for o, s in zip(ref.offsets, strides))
    return (f"memref<{'x'.join(str(d) for d in ref.shape)}x{elem}, "
            f"strided<[{', '.join(str(s) for s in strides)}], offset: {offset}>>")


def static_shape(ref) -> list:
    """The shape of an identity-typed ref (a buffer, a get_global, an alias of those)."""
    return list(ref.shape) if isinstance(ref, Buffer) else list(ref.roots[0].shape)


def ssa(ref) -> str:
    """How statements name a ref: a two-result iter_args loop's first result is `%a#0`."""
    if isinstance(ref, View) and ref.kind == "iter" and len(ref.alts) == 2:
        return f"%{ref.name}#0"
    return f"%{ref.name}"


def _plus(base: str, c: int) -> str:
    if c > 0:
        return f"{base} + {c}"
    if c < 0:
        return f"{base} - {-c}"
    return base


def _const_text(value, elem: str) -> str:
    if elem == "i32":
        return f"{int(value)} : i32"
    return f"{float(value)!r} : f32".replace("inf", "0x7F800000")


def _dense_text(value, elem: str) -> str:
    return f"dense<{int(value)}>" if elem.startswith("i") else f"dense<{float(value)!r}>"


class _Renderer:
    def __init__(self, prog: Program):
        self.prog = prog
        self.elem = prog.element_type
        self.tmp = 0
        self.index_consts: dict = {}
        self.globals: list = []
        self.helpers: list = []
        self.region: Region | None = None
        self.offsets: dict = {}  # region name -> constants c whose `%r + c` the body needs

    def fresh(self, prefix="x") -> str:
        self.tmp += 1
        return f"%{prefix}{self.tmp}"

    def ty(self, ref) -> str:
        return memref_type_text(ref, self.elem)

    def op(self, kind: str) -> str:
        if self.elem == "i32":
            return {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli"}[kind]
        return {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf"}[kind]

    def index_const(self, c: int) -> str:
        return self.index_consts.setdefault(c, f"%c{c}_idx")

    def cond(self, lines: list, ind: str, ref) -> str:
        """An i1 that is `ref[0, ..] > 0`: data decides, so both ways run across inputs."""
        v, z, b = self.fresh("f"), self.fresh("z"), self.fresh("b")
        subs = ", ".join("0" for _ in range(ref.rank))
        lines.append(f"{ind}{v} = affine.load {ssa(ref)}[{subs}] : {self.ty(ref)}")
        lines.append(f"{ind}{z} = arith.constant {_const_text(0, self.elem)}")
        cmp = "arith.cmpi sgt" if self.elem == "i32" else "arith.cmpf ogt"
        lines.append(f"{ind}{b} = {cmp}, {v}, {z} : {self.elem}")
        return b


def render(prog: Program) -> str:
    """MLIR text of a sized program: globals, helper functions, then the kernel."""
    r = _Renderer(prog)
    body = _render_stmts(r, prog.stmts, "    ")
    params = [(b.name, r.ty(b)) for b in prog.inputs + prog.outputs]
    params += [(s, "index") for s in sorted(prog.symbols)]
    sig = ", ".join(f"%{n}: {t}" for n, t in params)
    text = "\n".join(body)
    head = []
    used = set(re.findall(r"%(cst\d+)\b", text))
    for name, value in prog.constants.items():
        if name in used:
            head.append(f"    %{name} = arith.constant {_const_text(value, r.elem)}")
    for c, name in sorted(r.index_consts.items()):
        head.append(f"    {name} = arith.constant {c} : index")
    out = ["module {"]
    out.extend(r.globals)
    out.extend(r.helpers)
    if prog.alias_pairs:
        out.append(f"  func.func private @{prog.func_name}_body({sig}) {{")
        out.extend(head + body)
        out += ["    return", "  }"]
        out.append(f"  func.func @{prog.func_name}({sig}) {{")
        types = ", ".join(t for _, t in params)
        shared = dict((b, a) for a, b in prog.alias_pairs)
        calls = []
        if prog.plain_call_first:
            calls.append([n for n, _ in params])
        calls.append([shared.get(n, n) for n, _ in params])
        for names in calls:
            args = ", ".join(f"%{n}" for n in names)
            out.append(f"    func.call @{prog.func_name}_body({args}) : ({types}) -> ()")
        out += ["    return", "  }"]
    else:
        out.append(f"  func.func @{prog.func_name}({sig}) {{")
        out.extend(head + body)
        out += ["    return", "  }"]
    out.append("}")
    return "\n".join(out) + "\n"


def _render_stmts(r: _Renderer, stmts: list, ind: str) -> list:
    lines: list = []
    for st in stmts:
        lines.extend(_render_stmt(r, st.what, ind))
    return lines


def _render_stmt(r: _Renderer, w, ind: str) -> list:
    if isinstance(w, AllocOp):
        return [f"{ind}%{w.buf.name} = memref.{w.buf.kind}() : {r.ty(w.buf)}"]
    if isinstance(w, DeallocOp):
        return [f"{ind}memref.dealloc %{w.buf.name} : {r.ty(w.buf)}"]
    if isinstance(w, GlobalOp):
        constant = "constant " if w.buf.constant else ""
        r.globals.append(f"  memref.global \"private\" {constant}@{w.buf.name} : {r.ty(w.buf)} = "
                         f"{_dense_text(w.buf.init, r.elem)}")
        return []
    if isinstance(w, ViewOp):
        return _render_view(r, w.view, ind)
    if isinstance(w, ReshapeOp):
        return _render_reshape(r, w.view, ind)
    if isinstance(w, BlockSplit):
        return [f"{ind}cf.br ^{w.label}", f"  ^{w.label}:"]
    if isinstance(w, ScalarOp):
        if w.kind == "load":
            subs = ", ".join(str(c) for c in w.consts)
            return [f"{ind}%{w.name} = affine.load {ssa(w.ref)}[{subs}] : {r.ty(w.ref)}"]
        if w.kind == "arith":
            return [f"{ind}%{w.name} = {r.op(w.op)} %{w.a}, %{w.b} : {r.elem}"]
        subs = ", ".join(r.index_const(c) for c in w.consts)
        return [f"{ind}memref.store %{w.a}, {ssa(w.ref)}[{subs}] : {r.ty(w.ref)}"]
    if isinstance(w, CallOp):
        return _render_call(r, w, ind)
    if isinstance(w, Nest):
        return _render_nest(r, w, ind)
    if isinstance(w, Region):
        return _render_region(r, w, ind)
    if isinstance(w, Probe):
        return _render_probe(r, w, ind)
    if isinstance(w, Product):
        return _render_product(r, w, ind)
    if isinstance(w, Contraction):
        return _render_contraction(r, w, ind)
    if isinstance(w, TransposeCopy):
        return _render_transpose_copy(r, w, ind)
    if isinstance(w, RowLoss):
        return _render_row_loss(r, w, ind)
    raise TypeError(f"unknown statement {w!r}")


# -- views


def _render_view(r: _Renderer, v: View, ind: str) -> list:
    if v.kind == "cast":
        return [f"{ind}%{v.name} = memref.cast %{v.of.name} : {r.ty(v.of)} to {r.ty(v)}"]
    if v.kind == "subview":
        offs = ", ".join(str(o) for o in v.offsets)
        sizes = ", ".join(str(s) for s in v.shape)
        ones = ", ".join("1" for _ in v.shape)
        return [f"{ind}%{v.name} = memref.subview %{v.of.name}[{offs}] [{sizes}] [{ones}] : "
                f"{r.ty(v.of)} to {r.ty(v)}"]
    if v.kind == "get_global":
        return [f"{ind}%{v.name} = memref.get_global @{v.of.name} : {r.ty(v)}"]
    return _render_alias(r, v, ind)


def _render_alias(r: _Renderer, v: View, ind: str) -> list:
    """select / scf.if / call / iter_args loop: the result is one of `alts` at run time."""
    ty = r.ty(v)
    lines: list = []
    xs = []
    for a in v.alts:
        if r.ty(a) == ty:
            xs.append(ssa(a))
        else:
            c = r.fresh("dyn")
            lines.append(f"{ind}{c} = memref.cast {ssa(a)} : {r.ty(a)} to {ty}")
            xs.append(c)
    b = r.cond(lines, ind, v.cond) if v.cond is not None else None
    if v.kind == "select":
        lines.append(f"{ind}%{v.name} = arith.select {b}, {xs[0]}, {xs[-1]} : {ty}")
    elif v.kind == "if":
        lines += [f"{ind}%{v.name} = scf.if {b} -> ({ty}) {{", f"{ind}  scf.yield {xs[0]} : {ty}",
                  f"{ind}}} else {{", f"{ind}  scf.yield {xs[-1]} : {ty}", f"{ind}}}"]
    elif v.kind == "call":
        callee = f"pass_{v.name}"
        if b is None:
            lines.append(f"{ind}%{v.name} = func.call @{callee}({xs[0]}) : ({ty}) -> {ty}")
            r.helpers += [f"  func.func private @{callee}(%m: {ty}) -> {ty} {{", f"    return %m : {ty}", "  }"]
        else:
            lines.append(f"{ind}%{v.name} = func.call @{callee}({b}, {xs[0]}, {xs[1]}) : (i1, {ty}, {ty}) -> {ty}")
            r.helpers += [f"  func.func private @{callee}(%c: i1, %m: {ty}, %n: {ty}) -> {ty} {{",
                          f"    %s = arith.select %c, %m, %n : {ty}", f"    return %s : {ty}", "  }"]
    else:
        k, p, q = f"%{v.name}_k", f"%{v.name}_p", f"%{v.name}_q"
        two = len(v.alts) == 2
        res = f"%{v.name}:2" if two else f"%{v.name}"
        args = f"{p} = {xs[0]}, {q} = {xs[1]}" if two else f"{p} = {xs[0]}"
        types = f"{ty}, {ty}" if two else ty
        yields = f"{q}, {p}" if two else p
        if v.how == "affine":
            lines.append(f"{ind}{res} = affine.for {k} = 0 to {v.trips} iter_args({args}) -> ({types}) {{")
            lines.append(f"{ind}  affine.yield {yields} : {types}")
        else:
            lo, hi, one = r.index_const(0), r.index_const(v.trips), r.index_const(1)
            lines.append(f"{ind}{res} = scf.for {k} = {lo} to {hi} step {one} iter_args({args}) -> ({types}) {{")
            lines.append(f"{ind}  scf.yield {yields} : {types}")
        lines.append(f"{ind}}}")
    return lines


def _render_reshape(r: _Renderer, v: View, ind: str) -> list:
    """The shape buffer holds 1 first; a one-trip loop stores the real extent; then the reshape."""
    shp = f"%{v.name}_shp"
    k = f"%{v.name}_k"
    return [f"{ind}{shp} = memref.alloca() : memref<1xindex>",
            f"{ind}memref.store {r.index_const(1)}, {shp}[{r.index_const(0)}] : memref<1xindex>",
            f"{ind}affine.for {k} = 0 to 1 {{",
            f"{ind}  affine.store {r.index_const(v.shape[0])}, {shp}[{k}] : memref<1xindex>",
            f"{ind}}}",
            f"{ind}%{v.name} = memref.reshape %{v.of.name}({shp}) : ({r.ty(v.of)}, memref<1xindex>) -> {r.ty(v)}"]


# -- calls


def _render_call(r: _Renderer, w: CallOp, ind: str) -> list:
    """The call, and its helper: rewrite every element (b * scale + bias) or poke one (b + bias)."""
    elem = r.elem
    if w.mode == "global":
        ty = r.ty(w.buf)
        lines = [f"{ind}func.call @{w.callee}() : () -> ()"]
        head = [f"  func.func private @{w.callee}() {{", f"    %b = memref.get_global @{w.buf.name} : {ty}"]
    elif w.mode == "unranked":
        ty = memref_type_text(w.buf.roots[0], elem)
        u = r.fresh("u")
        lines = [f"{ind}{u} = memref.cast {ssa(w.buf)} : {r.ty(w.buf)} to memref<*x{elem}>",
                 f"{ind}func.call @{w.callee}({u}) : (memref<*x{elem}>) -> ()"]
        head = [f"  func.func private @{w.callee}(%u: memref<*x{elem}>) {{",
                f"    %b = memref.cast %u : memref<*x{elem}> to {ty}"]
    else:
        ty = r.ty(w.buf)
        lines = [f"{ind}func.call @{w.callee}({ssa(w.buf)}) : ({ty}) -> ()"]
        head = [f"  func.func private @{w.callee}(%b: {ty}) {{"]
    head += [f"    %scale = arith.constant {_const_text(w.scale, elem)}",
             f"    %bias = arith.constant {_const_text(w.bias, elem)}"]
    shape = static_shape(w.buf)
    if w.kind == "poke":
        subs = ", ".join(str(c) for c in w.consts)
        head += [f"    %v = affine.load %b[{subs}] : {ty}",
                 f"    %a = {r.op('add')} %v, %bias : {elem}",
                 f"    affine.store %a, %b[{subs}] : {ty}"]
    else:
        hind = "    "
        names = [f"h{d}" for d in range(len(shape))]
        for d, n in enumerate(names):
            head.append(f"{hind}affine.for %{n} = 0 to {shape[d]} {{")
            hind += "  "
        subs = ", ".join(f"%{n}" for n in names)
        head += [f"{hind}%v = affine.load %b[{subs}] : {ty}",
                 f"{hind}%m = {r.op('mul')} %v, %scale : {elem}",
                 f"{hind}%a = {r.op('add')} %m, %bias : {elem}",
                 f"{hind}affine.store %a, %b[{subs}] : {ty}"]
        for _ in names:
            hind = hind[:-2]
            head.append(f"{hind}}}")
    r.helpers += head + ["    return", "  }"]
    return lines


# -- regions


def _render_region(r: _Renderer, reg: Region, ind: str) -> list:
    n = reg.name
    saved, r.region = r.region, reg
    r.offsets[n] = set()
    inner = ind + ("" if reg.kind in ("cf_loop", "cf_if") else "  ")
    body = _render_stmts(r, reg.body, inner)
    r.region = saved
    pre = [f"{inner}%{n}_k{c} = arith.addi %{n}, {r.index_const(c)} : index" for c in sorted(r.offsets[n])]
    one, trips = r.index_const(1), r.index_const(reg.trips)
    step = [f"{inner}%{n}_next = arith.addi %{n}, {one} : index"]
    lines: list = []
    if reg.kind == "affine_for":
        lines.append(f"{ind}affine.for %{n} = 0 to {reg.trips} {{")
        lines += pre + body + [f"{ind}}}"]
    elif reg.kind == "scf_for":
        lines.append(f"{ind}scf.for %{n} = {r.index_const(0)} to {trips} step {one} {{")
        lines += pre + body + [f"{ind}}}"]
    elif reg.kind == "affine_iter":
        lines.append(f"{ind}%{n}_res = affine.for %{n}_iv = 0 to {reg.trips} "
                     f"iter_args(%{n} = {r.index_const(0)}) -> (index) {{")
        lines += pre + body + step + [f"{inner}affine.yield %{n}_next : index", f"{ind}}}"]
    elif reg.kind == "scf_while":
        lines += [f"{ind}%{n}_res = scf.while (%{n}_b = {r.index_const(0)}) : (index) -> index {{",
                  f"{inner}%{n}_c = arith.cmpi slt, %{n}_b, {trips} : index",
                  f"{inner}scf.condition(%{n}_c) %{n}_b : index",
                  f"{ind}}} do {{",
                  f"{ind}^bb0(%{n}: index):"]
        lines += pre + body + step + [f"{inner}scf.yield %{n}_next : index", f"{ind}}}"]
    elif reg.kind == "cf_loop":
        lines += [f"{ind}cf.br ^{n}_h({r.index_const(0)} : index)",
                  f"  ^{n}_h(%{n}: index):",
                  f"{ind}%{n}_c = arith.cmpi slt, %{n}, {trips} : index",
                  f"{ind}cf.cond_br %{n}_c, ^{n}_b, ^{n}_x",
                  f"  ^{n}_b:"]
        lines += pre + body + step + [f"{ind}cf.br ^{n}_h(%{n}_next : index)", f"  ^{n}_x:"]
    elif reg.kind == "scf_if":
        b = r.cond(lines, ind, reg.cond)
        lines.append(f"{ind}scf.if {b} {{")
        lines += body + [f"{ind}}}"]
    elif reg.kind == "cf_if":
        b = r.cond(lines, ind, reg.cond)
        lines += [f"{ind}cf.cond_br {b}, ^{n}_t, ^{n}_j", f"  ^{n}_t:"]
        lines += body + [f"{ind}cf.br ^{n}_j", f"  ^{n}_j:"]
    else:
        raise ValueError(f"unknown region kind {reg.kind}")
    return lines


# -- nests


def _bound_map(dims: list, syms: list, exprs: list) -> str:
    d = ", ".join(f"d{k}" for k in range(len(dims)))
    s = f"[{', '.join(f's{k}' for k in range(len(syms)))}]" if syms else ""
    ops = f"({', '.join(dims)})" + (f"[{', '.join(syms)}]" if syms else "")
    return f"affine_map<({d}){s} -> ({', '.join(exprs)})>{ops}"


def _lower_text(lp: Loop, names: list) -> str:
    if lp.lb is None:
        return str(lp.lo)
    if lp.lb[0] == "band":
        _, k, c = lp.lb
        return _bound_map([f"%{names[k]}"], [], [_plus("d0", c)])
    x = lp.lb[1]
    if x[0] == "const":
        return "max " + _bound_map([], [], [str(lp.lo), str(x[1])])
    if x[0] == "sym":
        return "max " + _bound_map([], [f"%{x[1]}"], [str(lp.lo), _plus("s0", x[2])])
    return "max " + _bound_map([f"%{names[x[1]]}"], [], [str(lp.lo), _plus("d0", x[2])])


def _upper_text(hi, names: list) -> str:
    if isinstance(hi, str):
        return f"%{hi}"
    if isinstance(hi, tuple) and hi[0] == "shape":
        _, ref, dim = hi
        return str(ref.shape[dim])
    if isinstance(hi, tuple):
        _, k, c = hi
        return _bound_map([f"%{names[k]}"], [], [_plus("d0", c)])
    return str(hi)


def _loop_header(lp: Loop, d: int, names: list) -> str:
    step = f" step {lp.step}" if lp.step > 1 else ""
    return f"%{names[d]} = {_lower_text(lp, names)} to {_upper_text(lp.hi, names)}{step}"


def _open_loop(lines: list, ind: str, lp: Loop, d: int, names: list) -> tuple:
    """Open one loop (two when tiled); returns the new indent and how many braces to close."""
    if lp.tile is None:
        lines.append(f"{ind}affine.for {_loop_header(lp, d, names)} {{")
        return ind + "  ", 1
    var = names[d]
    hi = _upper_text(lp.hi, names)
    outer = f"%{var}_t"
    lines.append(f"{ind}affine.for {outer} = {lp.lo} to {hi} step {lp.tile} {{")
    ind += "  "
    if isinstance(lp.hi, str):
        ub = f"min affine_map<(d0)[s0] -> (d0 + {lp.tile}, s0)>({outer})[%{lp.hi}]"
    else:
        ub = f"min affine_map<(d0) -> (d0 + {lp.tile}, {hi})>({outer})"
    lines.append(f"{ind}affine.for %{var} = affine_map<(d0) -> (d0)>({outer}) to {ub} {{")
    return ind + "  ", 2


def _idx_text(s: Idx, names: list, rv: str | None) -> str:
    if s.var is None:
        t = str(s.const)
        return f"%{rv} + {s.const}" if s.rv and s.const else (f"%{rv}" if s.rv else t)
    t = f"%{names[s.var]}"
    if s.coef != 1:
        t = f"{t} * {s.coef}"
    if s.rv:
        t = f"{t} + %{rv}"
    return _plus(t, s.const)


def _affine_subs(r: _Renderer, lines: list, ind: str, idx: tuple, names: list) -> str:
    """Subscripts of an affine access; a semi-affine one is an affine.apply emitted first."""
    rv = r.region.name if r.region is not None else None
    out = []
    for s in idx:
        if s.semi:
            op, sym = s.semi
            q = r.fresh("q")
            if s.var is None:
                lines.append(f"{ind}{q} = affine.apply affine_map<()[s0] -> ({s.const} {op} s0)>()[%{sym}]")
            else:
                x = _plus("d0" if s.coef == 1 else f"d0 * {s.coef}", s.const)
                lines.append(f"{ind}{q} = affine.apply affine_map<(d0)[s0] -> (({x}) {op} s0)>"
                             f"(%{names[s.var]})[%{sym}]")
            out.append(q)
        else:
            out.append(_idx_text(s, names, rv))
    return ", ".join(out)


def _memref_indices(r: _Renderer, idx: tuple, names: list) -> str:
    """Index operands of memref.load/store: a loop variable, a constant, or the region counter
    plus a constant (computed once at the top of the region's body)."""
    out = []
    for s in idx:
        if s.rv:
            n = r.region.name
            if s.const:
                r.offsets[n].add(s.const)
                out.append(f"%{n}_k{s.const}")
            else:
                out.append(f"%{n}")
        elif s.var is not None:
            out.append(f"%{names[s.var]}")
        else:
            out.append(r.index_const(s.const))
    return ", ".join(out)


def _vtype(r: _Renderer, width: int) -> str:
    return f"vector<{width}x{r.elem}>" if width > 1 else r.elem


def _load(r: _Renderer, lines: list, ind: str, acc, names: list, width: int) -> str:
    v = r.fresh("v")
    ty = r.ty(acc.ref)
    if acc.mode == "memref":
        lines.append(f"{ind}{v} = memref.load {ssa(acc.ref)}[{_memref_indices(r, acc.idx, names)}] : {ty}")
        return v
    subs = _affine_subs(r, lines, ind, acc.idx, names)
    if width > 1:
        lines.append(f"{ind}{v} = affine.vector_load {ssa(acc.ref)}[{subs}] : {ty}, {_vtype(r, width)}")
    else:
        lines.append(f"{ind}{v} = affine.load {ssa(acc.ref)}[{subs}] : {ty}")
    return v


def _store(r: _Renderer, lines: list, ind: str, val: str, acc, names: list, width: int) -> None:
    ty = r.ty(acc.ref)
    if acc.mode == "memref":
        lines.append(f"{ind}memref.store {val}, {ssa(acc.ref)}[{_memref_indices(r, acc.idx, names)}] : {ty}")
        return
    subs = _affine_subs(r, lines, ind, acc.idx, names)
    if width > 1:
        lines.append(f"{ind}affine.vector_store {val}, {ssa(acc.ref)}[{subs}] : {ty}, {_vtype(r, width)}")
    else:
        lines.append(f"{ind}affine.store {val}, {ssa(acc.ref)}[{subs}] : {ty}")


def _render_nest(r: _Renderer, nest: Nest, ind: str) -> list:
    lines: list = []
    tag = r.fresh("")[1:]
    names = [f"i{tag}_{d}" for d in range(len(nest.loops))]
    for v in nest.reshapes:
        lines.append(f"{ind}%{v.name}_shp = memref.alloca() : memref<1xindex>")
        lines.append(f"{ind}memref.store {r.index_const(1)}, %{v.name}_shp[{r.index_const(0)}] : memref<1xindex>")
    is_iter = nest.kind == "reduce_iter"
    outer = nest.loops[:-1] if is_iter else nest.loops
    closers = 0
    for d, lp in enumerate(outer):
        ind, n = _open_loop(lines, ind, lp, d, names)
        closers += n
    w = nest.width
    if is_iter:
        d = len(nest.loops) - 1
        acc, res = f"%acc{tag}", f"%red{tag}"
        lines.append(f"{ind}{res} = affine.for {_loop_header(nest.loops[d], d, names)} "
                     f"iter_args({acc} = %{nest.init_scalar}) -> ({r.elem}) {{")
        inner = ind + "  "
        val = _render_body(r, lines, inner, nest, names)
        nxt = r.fresh("v")
        lines.append(f"{inner}{nxt} = {r.op('add')} {acc}, {val} : {r.elem}")
        if nest.body_call is not None and not nest.call_first:
            lines.extend(_render_call(r, nest.body_call, inner))
        lines.append(f"{inner}affine.yield {nxt} : {r.elem}")
        lines.append(f"{ind}}}")
        _store(r, lines, ind, res, nest.dst, names, 1)
    else:
        val = _render_body(r, lines, ind, nest, names)
        if nest.kind == "reduce_acc":
            old = _load(r, lines, ind, nest.dst, names, w)
            new = r.fresh("v")
            lines.append(f"{ind}{new} = {r.op('add')} {old}, {val} : {_vtype(r, w)}")
            val = new
        _store(r, lines, ind, val, nest.dst, names, w)
        for dst, compute in nest.extra:
            _store(r, lines, ind, _render_compute(r, lines, ind, nest, names, compute), dst, names, w)
        if nest.body_call is not None and not nest.call_first:
            lines.extend(_render_call(r, nest.body_call, ind))
    for _ in range(closers):
        ind = ind[:-2]
        lines.append(f"{ind}}}")
    return lines


def _render_body(r: _Renderer, lines: list, ind: str, nest: Nest, names: list) -> str:
    """The innermost body up to the stored value: a first call, local reshapes, the arithmetic."""
    if nest.body_call is not None and nest.call_first:
        lines.extend(_render_call(r, nest.body_call, ind))
    for v in nest.reshapes:
        lines.append(f"{ind}affine.store {r.index_const(v.shape[0])}, %{v.name}_shp[0] : memref<1xindex>")
        lines.append(f"{ind}%{v.name} = memref.reshape %{v.of.name}(%{v.name}_shp) : "
                     f"({r.ty(v.of)}, memref<1xindex>) -> {r.ty(v)}")
    return _render_compute(r, lines, ind, nest, names)


def _render_compute(r: _Renderer, lines: list, ind: str, nest: Nest, names: list, compute=None) -> str:
    c, w = compute or nest.compute, nest.width
    vt = _vtype(r, w)
    vals = []
    raw = nest.dst.ref.base.elem == "index"  # the counter itself is stored (the only term)
    for kind, t in c.terms:
        if kind == "load" and t.ref.base.elem == "index":
            vals.append(_iv_value(r, lines, ind, _load(r, lines, ind, t, names, w)))
        elif kind == "load":
            vals.append(_load(r, lines, ind, t, names, w))
        elif kind == "iv":
            vals.append(f"%{names[t]}" if raw else _iv_value(r, lines, ind, f"%{names[t]}"))
        elif w == 1:
            vals.append(f"%{t}")
        elif kind == "scalar":
            v = r.fresh("bc")
            lines.append(f"{ind}{v} = vector.broadcast %{t} : {r.elem} to {vt}")
            vals.append(v)
        else:
            v = r.fresh("vc")
            lines.append(f"{ind}{v} = arith.constant {_dense_text(r.prog.constants[t], r.elem)} : {vt}")
            vals.append(v)
    acc = vals[0]
    for op, v in zip(c.ops, vals[1:]):
        nxt = r.fresh("v")
        lines.append(f"{ind}{nxt} = {r.op(op)} {acc}, {v} : {vt}")
        acc = nxt
    if c.invariant:
        op, a, b = c.invariant
        inv = r.fresh("inv")
        lines.append(f"{ind}{inv} = {r.op(op)} %{a}, %{b} : {r.elem}")
        if w > 1:
            bc = r.fresh("bc")
            lines.append(f"{ind}{bc} = vector.broadcast {inv} : {r.elem} to {vt}")
            inv = bc
        nxt = r.fresh("v")
        lines.append(f"{ind}{nxt} = {r.op('add')} {acc}, {inv} : {vt}")
        acc = nxt
    if c.guard:
        op, sym, k, t, a, b = c.guard
        gv = r.fresh("g")
        lines += [f"{ind}{gv} = affine.if affine_set<()[s0] : ({k} {op} s0 - {t} >= 0)>()[%{sym}] -> {r.elem} {{",
                  f"{ind}  affine.yield %{a} : {r.elem}", f"{ind}}} else {{",
                  f"{ind}  affine.yield %{b} : {r.elem}", f"{ind}}}"]
        nxt = r.fresh("v")
        lines.append(f"{ind}{nxt} = {r.op('add')} {acc}, {gv} : {vt}")
        acc = nxt
    return acc


def _iv_value(r: _Renderer, lines: list, ind: str, iv: str) -> str:
    """An index value (a loop counter, or one loaded from an index buffer) as data of the element
    type: index_cast to i32 (then sitofp for floats)."""
    c = r.fresh("ivc")
    lines.append(f"{ind}{c} = arith.index_cast {iv} : index to i32")
    if r.elem == "i32":
        return c
    f = r.fresh("ivf")
    lines.append(f"{ind}{f} = arith.sitofp {c} : i32 to {r.elem}")
    return f


# -- matrix products (issue 33)


def _render_product(r: _Renderer, p: Product, ind: str) -> list:
    """The decoy globals and their reads, then the product nest (see `model.Product`)."""
    lines = _render_decoys(r, p, ind)
    t, elem = p.tag, r.elem
    i, j, k = f"%{t}_i", f"%{t}_j", f"%{t}_k"
    ta, tb, tc = r.ty(p.a), r.ty(p.b), r.ty(p.c)
    zero = f"%{t}_z"
    lines.append(f"{ind}{zero} = arith.constant {_const_text(0, elem)}")
    lines.append(f"{ind}affine.for {i} = 0 to {p.m} {{")
    qi = ind + "  "
    before = []
    if "read_c" in p.before:
        v = f"%{t}_pc"
        lines.append(f"{qi}{v} = affine.load %{p.c.name}[{i}, {p.cols[0]}] : {tc}")
        before.append(v)
    if "read_e" in p.before:
        v = f"%{t}_pe"
        lines.append(f"{qi}{v} = affine.load {ssa(p.e)}[{i}] : {r.ty(p.e)}")
        before.append(v)
    pi = qi + "  "
    if p.row_init:
        init = f"%{t}_r0"
        lines.append(f"{qi}{init} = affine.load %{p.r.name}[{i}] : {r.ty(p.r)}")
        lines.append(f"{qi}%{t}_row = affine.for {j} = 0 to {p.n} iter_args(%{t}_acc = {init}) -> ({elem}) {{")
    else:
        lines.append(f"{qi}affine.for {j} = 0 to {p.n} {{")
    ri = pi + "  "
    lines.append(f"{pi}%{t}_s = affine.for {k} = 0 to {p.k} iter_args(%{t}_sum = {zero}) -> ({elem}) {{")
    lines.append(f"{ri}%{t}_a = affine.load {ssa(p.a)}[{i}, {k}] : {ta}")
    b_subs = f"{j}, {k}" if p.bt else f"{k}, {j}"
    lines.append(f"{ri}%{t}_b = affine.load {ssa(p.b)}[{b_subs}] : {tb}")
    lines.append(f"{ri}%{t}_ab = {r.op('mul')} %{t}_a, %{t}_b : {elem}")
    lines.append(f"{ri}%{t}_n = {r.op('add')} %{t}_sum, %{t}_ab : {elem}")
    lines.append(f"{ri}affine.yield %{t}_n : {elem}")
    lines.append(f"{pi}}}")
    val = f"%{t}_s"
    if p.iv:
        val2 = f"%{t}_sj"
        lines.append(f"{pi}{val2} = {r.op('add')} {val}, {_iv_value(r, lines, pi, j)} : {elem}")
        val = val2
    lines.append(f"{pi}affine.store {val}, %{p.c.name}[{i}, {j}] : {tc}")
    if p.row_init:
        red = ("arith.maximumf" if elem != "i32" else "arith.maxsi") if p.row_init == "max" else r.op("add")
        lines.append(f"{pi}%{t}_m = {red} %{t}_acc, {val} : {elem}")
        lines.append(f"{pi}affine.yield %{t}_m : {elem}")
    lines.append(f"{qi}}}")
    if p.row_init:
        lines.append(f"{qi}affine.store %{t}_row, %{p.r.name}[{i}] : {r.ty(p.r)}")
    if "write_d" in p.after:
        acc = f"%{t}_d"
        lines.append(f"{qi}{acc} = affine.load %{p.d.name}[{i}] : {r.ty(p.d)}")
        last = f"%{t}_last"
        lines.append(f"{qi}{last} = affine.load %{p.c.name}[{i}, {p.n - 1 - p.cols[1]}] : {tc}")
        for n, v in enumerate([last] + before):
            nxt = f"%{t}_d{n}"
            lines.append(f"{qi}{nxt} = {r.op('add')} {acc}, {v} : {elem}")
            acc = nxt
        lines.append(f"{qi}affine.store {acc}, %{p.d.name}[{i}] : {r.ty(p.d)}")
        if "write_c" in p.after:
            lines.append(f"{qi}affine.store {acc}, %{p.c.name}[{i}, {p.cols[2]}] : {tc}")
    lines.append(f"{ind}}}")
    return lines


def _subscript(ivs: list, terms: tuple) -> str:
    """An affine subscript `%a * 2 + %b` from (loop number, coefficient) terms."""
    parts = [ivs[n] if c == 1 else f"{ivs[n]} * {c}" for n, c in terms]
    return " + ".join(parts) or "0"


def _render_contraction(r: _Renderer, c: Contraction, ind: str) -> list:
    """The fill nest (if any), then the contraction nest (see `model.Contraction`)."""
    t, elem = c.tag, r.elem
    ivs = [f"%{t}_l{n}" for n in range(len(c.trips))]
    to, tx = r.ty(c.o), r.ty(c.x)
    out_subs = ", ".join(ivs[:len(c.par)])
    lines: list = []
    if c.fill is not None:
        fill_ivs = [f"%{t}_f{n}" for n in range(len(c.par))]
        for d, trip in enumerate(c.par):
            lines.append(f"{ind}{'  ' * d}affine.for {fill_ivs[d]} = 0 to {trip} {{")
        fi = ind + "  " * len(c.par)
        lines.append(f"{fi}affine.store %{c.fill_name}, %{c.o.name}[{', '.join(fill_ivs)}] : {to}")
        for d in reversed(range(len(c.par))):
            lines.append(f"{ind}{'  ' * d}}}")

    def update(li: str, acc: str) -> str:
        x = f"%{t}_x"
        lines.append(f"{li}{x} = affine.load %{c.x.name}[{', '.join(_subscript(ivs, s) for s in c.xsub)}] : {tx}")
        if c.kind == "max":
            op = "arith.maxsi" if elem == "i32" else "arith.maximumf"
            lines.append(f"{li}%{t}_n = {op} {acc}, {x} : {elem}")
            return f"%{t}_n"
        v = x
        if c.w is not None:
            w = f"%{t}_w"
            subs = ", ".join(_subscript(ivs, s) for s in c.wsub)
            lines.append(f"{li}{w} = affine.load %{c.w.name}[{subs}] : {r.ty(c.w)}")
            lines.append(f"{li}%{t}_m = {r.op('mul')} {x}, {w} : {elem}")
            v = f"%{t}_m"
        lines.append(f"{li}%{t}_n = {r.op('add')} {acc}, {v} : {elem}")
        return f"%{t}_n"

    if c.form == "memory":
        for d, n in enumerate(c.order):
            lines.append(f"{ind}{'  ' * d}affine.for {ivs[n]} = 0 to {c.trips[n]} {{")
        li = ind + "  " * len(c.order)
        lines.append(f"{li}%{t}_o = affine.load %{c.o.name}[{out_subs}] : {to}")
        val = update(li, f"%{t}_o")
        lines.append(f"{li}affine.store {val}, %{c.o.name}[{out_subs}] : {to}")
        for d in reversed(range(len(c.order))):
            lines.append(f"{ind}{'  ' * d}}}")
        return lines
    npar = len(c.par)
    for d in range(npar):
        lines.append(f"{ind}{'  ' * d}affine.for {ivs[d]} = 0 to {c.par[d]} {{")
    pi = ind + "  " * npar
    lines.append(f"{pi}%{t}_o = affine.load %{c.o.name}[{out_subs}] : {to}")
    acc = f"%{t}_o"
    for d in range(len(c.red)):
        li = pi + "  " * d
        n = npar + d
        lines.append(f"{li}%{t}_s{d} = affine.for {ivs[n]} = 0 to {c.red[d]} iter_args(%{t}_a{d} = {acc}) "
                     f"-> ({elem}) {{")
        acc = f"%{t}_a{d}"
    li = pi + "  " * len(c.red)
    val = update(li, acc)
    for d in reversed(range(len(c.red))):
        lines.append(f"{pi + '  ' * (d + 1)}affine.yield {val} : {elem}")
        lines.append(f"{pi + '  ' * d}}}")
        val = f"%{t}_s{d}"
    lines.append(f"{pi}affine.store {val}, %{c.o.name}[{out_subs}] : {to}")
    for d in reversed(range(npar)):
        lines.append(f"{ind}{'  ' * d}}}")
    return lines


def _render_transpose_copy(r: _Renderer, c: TransposeCopy, ind: str) -> list:
    """The copy band (see `model.TransposeCopy`), then the read of the copy into `out`."""
    t = c.tag
    i, j = f"%{t}_i", f"%{t}_j"
    ts, td = r.ty(c.src), r.ty(c.dst)
    first, second = ((j, c.cols), (i, c.rows)) if c.j_outer else ((i, c.rows), (j, c.cols))
    lines = [f"{ind}affine.for {first[0]} = 0 to {first[1]} {{", f"{ind}  affine.for {second[0]} = 0 to {second[1]} {{",
             f"{ind}    %{t}_v = affine.load {ssa(c.src)}[{i}, {j}] : {ts}",
             f"{ind}    affine.store %{t}_v, %{c.dst.name}[{j}, {i}] : {td}", f"{ind}  }}", f"{ind}}}"]
    if c.out is not None:
        to = r.ty(c.out)
        lines += [f"{ind}affine.for {i}r = 0 to {c.rows} {{", f"{ind}  affine.for {j}r = 0 to {c.cols} {{",
                  f"{ind}    %{t}_d = affine.load %{c.dst.name}[{j}r, {i}r] : {td}",
                  f"{ind}    %{t}_o = affine.load %{c.out.name}[{j}r, {i}r] : {to}",
                  f"{ind}    %{t}_s = {r.op('add')} %{t}_d, %{t}_o : {r.elem}",
                  f"{ind}    affine.store %{t}_s, %{c.out.name}[{j}r, {i}r] : {to}", f"{ind}  }}", f"{ind}}}"]
    return lines


def _render_row_loss(r: _Renderer, c: RowLoss, ind: str) -> list:
    """The steps of a loss (see `model.RowLoss`), each in a row loop of its own or all in one."""
    t, elem = c.tag, r.elem
    tx, to, tl, tv = r.ty(c.x), r.ty(c.o), r.ty(c.l), r.ty(c.m)
    flt = elem != "i32"
    mx = "arith.maximumf" if flt else "arith.maxsi"
    x, o, M, S = f"%{c.x.name}", f"%{c.o.name}", f"%{c.m.name}", f"%{c.s.name}"

    def row_fill(i, n, buf, value):
        return [f"affine.store {value}, {buf}[{i}] : {tv}"]

    def row_reduce(i, n, buf, op, src, ty):
        j = f"%{t}_j{n}"
        return [f"affine.for {j} = 0 to {c.cols} {{",
                f"  %{t}_a{n} = affine.load {buf}[{i}] : {tv}",
                f"  %{t}_b{n} = affine.load {src}[{i}, {j}] : {ty}",
                f"  %{t}_c{n} = {op} %{t}_a{n}, %{t}_b{n} : {elem}",
                f"  affine.store %{t}_c{n}, {buf}[{i}] : {tv}", "}"]

    def first(i, n):
        return [f"%{t}_x0{n} = affine.load {x}[{i}, 0] : {tx}"] + row_fill(i, n, M, f"%{t}_x0{n}")

    def exps(i, n):
        j = f"%{t}_j{n}"
        body = [f"  %{t}_m{n} = affine.load {M}[{i}] : {tv}", f"  %{t}_x{n} = affine.load {x}[{i}, {j}] : {tx}",
                f"  %{t}_d{n} = {r.op('sub')} %{t}_x{n}, %{t}_m{n} : {elem}"]
        if flt:
            body.append(f"  %{t}_e{n} = math.exp %{t}_d{n} : {elem}")
        else:
            body += [f"  %{t}_two{n} = arith.constant 2 : i32", f"  %{t}_e{n} = arith.muli %{t}_d{n}, %{t}_two{n} : i32"]
        return [f"affine.for {j} = 0 to {c.cols} {{"] + body + [f"  affine.store %{t}_e{n}, {o}[{i}, {j}] : {to}", "}"]

    def zero(i, n):
        return [f"%{t}_z{n} = arith.constant {_const_text(0, elem)}"] + row_fill(i, n, S, f"%{t}_z{n}")

    def result(i, n):
        j = f"%{t}_j{n}"
        body = [f"  %{t}_m{n} = affine.load {M}[{i}] : {tv}", f"  %{t}_s{n} = affine.load {S}[{i}] : {tv}"]
        g = f"%{t}_s{n}"
        if flt and c.sum:
            body.append(f"  %{t}_lg{n} = math.log %{t}_s{n} : {elem}")
            g = f"%{t}_lg{n}"
        body += [f"  %{t}_x{n} = affine.load {x}[{i}, {j}] : {tx}",
                 f"  %{t}_d{n} = {r.op('sub')} %{t}_x{n}, %{t}_m{n} : {elem}",
                 f"  %{t}_r{n} = {r.op('sub')} %{t}_d{n}, {g} : {elem}",
                 f"  affine.store %{t}_r{n}, {o}[{i}, {j}] : {to}"]
        return [f"affine.for {j} = 0 to {c.cols} {{"] + body + ["}"]

    def gather(i, n):
        return [f"%{t}_g{n} = affine.load {o}[{i}, {c.t}] : {to}", f"affine.store %{t}_g{n}, %{c.l.name}[{i}] : {tl}"]

    steps = [first, lambda i, n: row_reduce(i, n, M, mx, x, tx), exps, zero,
             lambda i, n: row_reduce(i, n, S, r.op("add") if c.sum else mx, o, to), result, gather]
    lines: list = []
    if c.fused:
        i = f"%{t}_i"
        lines.append(f"{ind}affine.for {i} = 0 to {c.rows} {{")
        for n, step in enumerate(steps):
            lines += [f"{ind}  {line}" for line in step(i, n)]
        lines.append(f"{ind}}}")
        return lines
    for n, step in enumerate(steps):
        i = f"%{t}_i{n}"
        lines.append(f"{ind}affine.for {i} = 0 to {c.rows} {{")
        lines += [f"{ind}  {line}" for line in step(i, n)]
        lines.append(f"{ind}}}")
    return lines


def _render_decoys(r: _Renderer, p: Product, ind: str) -> list:
    """Each decoy global and a read of it into `o`; exp's table also in a loop over x into ox
    (through math.exp for floats, which exact_math rewrites with a table of its own)."""
    lines: list = []
    to = r.ty(p.o) if p.o is not None else ""
    for n, (name, shape, value, elem) in enumerate(p.decoys):
        ty = f"memref<{'x'.join(map(str, shape))}x{elem}>"
        r.globals.append(f"  memref.global \"private\" constant @{name} : {ty} = {_dense_text(value, elem)}")
        g, v = f"%{p.tag}_g{n}", f"%{p.tag}_v{n}"
        lines.append(f"{ind}{g} = memref.get_global @{name} : {ty}")
        lines.append(f"{ind}{v} = affine.load {g}[{', '.join('0' for _ in shape)}] : {ty}")
        val = _convert(r, lines, ind, v, elem)
        lines.append(f"{ind}affine.store {val}, %{p.o.name}[{n}] : {to}")
        if name.startswith("loopopt_expf_table") and p.x is not None:
            e = f"%{p.tag}_e"
            lines.append(f"{ind}affine.for {e} = 0 to 8 {{")
            ei = ind + "  "
            tv, xv = f"%{p.tag}_tv", f"%{p.tag}_xv"
            lines.append(f"{ei}{tv} = affine.load {g}[{e}] : {ty}")
            lines.append(f"{ei}{xv} = affine.load %{p.x.name}[{e}] : {r.ty(p.x)}")
            x = xv
            if r.elem != "i32":
                x = f"%{p.tag}_ex"
                lines.append(f"{ei}{x} = math.exp {xv} : {r.elem}")
            s = f"%{p.tag}_es"
            lines.append(f"{ei}{s} = {r.op('add')} {x}, {_convert(r, lines, ei, tv, elem)} : {r.elem}")
            lines.append(f"{ei}affine.store {s}, %{p.ox.name}[{e}] : {r.ty(p.ox)}")
            lines.append(f"{ind}}}")
    return lines


def _convert(r: _Renderer, lines: list, ind: str, v: str, elem: str) -> str:
    """`v` of type `elem` as the program's element type (an i64 table entry: sitofp or trunci)."""
    if elem == r.elem:
        return v
    c = r.fresh("tcv")
    op = "arith.trunci" if r.elem == "i32" else "arith.sitofp"
    lines.append(f"{ind}{c} = {op} {v} : {elem} to {r.elem}")
    return c


# -- forwarding probes (issue 22)


class _ProbeScope:
    """How a probe's body names values: in the kernel, its constants and refs; in a private
    callee, constants defined at its top, the alias as `%x` and a global through get_global."""

    def __init__(self, r: _Renderer, probe: Probe, callee: bool):
        self.r, self.p, self.callee = r, probe, callee
        self.head: list = []  # callee only: definitions at the top of its body
        self.names: dict = {}

    def _define(self, key, text: str, prefix: str) -> str:
        if key not in self.names:
            name = f"%{prefix}{len(self.names)}"
            self.head.append(f"    {name} = {text}")
            self.names[key] = name
        return self.names[key]

    def value(self, name: str) -> str:
        if not self.callee:
            return f"%{name}"
        return self._define(("cst", name), f"arith.constant {_const_text(self.r.prog.constants[name], self.r.elem)}", "pv")

    def index(self, c: int) -> str:
        if not self.callee:
            return self.r.index_const(c)
        return self._define(("idx", c), f"arith.constant {c} : index", "pc")

    def true(self) -> str:
        return self._define("true", "arith.constant true", "pt")

    def ref(self, ref) -> str:
        if not self.callee:
            return ssa(ref)
        if ref is self.p.alias:
            return "%x"
        glob = ref.of if isinstance(ref, View) else ref
        return self._define(("glob", glob.name), f"memref.get_global @{glob.name} : {self.r.ty(glob)}", "pg")


def _probe_subscripts(p: Probe, k: str | None, back: int = 0) -> list:
    """Affine subscripts of the probed element (the last one `back` lower): constants, and
    `k + c` in dim `p.dim` inside the probe's loop."""
    out = []
    for d, c in enumerate(p.at):
        c -= back if d == len(p.at) - 1 else 0
        out.append(_plus(k, c) if k is not None and d == p.dim else str(c))
    return out


def _last_extent(ref) -> int:
    """The last extent every storage `ref` may be has (an alias: the smallest of its alternatives)."""
    refs = ref.alts if isinstance(ref, View) and ref.kind in ALIAS_KINDS else (ref,)
    return min(static_shape(a)[-1] for a in refs)


def _render_probe(r: _Renderer, p: Probe, ind: str) -> list:
    """The probe in place, or (callee) a call of a private function holding it."""
    if not p.callee:
        return _probe_body(r, p, ind, _ProbeScope(r, p, False))
    sc = _ProbeScope(r, p, True)
    body = _probe_body(r, p, "    ", sc)
    ta, to = r.ty(p.alias), r.ty(p.out)
    r.helpers += ([f"  func.func private @{p.callee}(%x: {ta}, %o: {to}) {{"] + sc.head + body
                  + ["    return", "  }"])
    return [f"{ind}func.call @{p.callee}({ssa(p.alias)}, %{p.out.name}) : ({ta}, {to}) -> ()"]


def _probe_body(r: _Renderer, p: Probe, ind: str, sc: _ProbeScope) -> list:
    lines: list = []
    tag = r.fresh("")[1:]
    k = None
    if p.trips > 1:
        k = f"%fk{tag}"
        lines.append(f"{ind}affine.for {k} = 0 to {p.trips} {{")
        ind += "  "
    at = ", ".join(_probe_subscripts(p, k))
    ref, ty = sc.ref(p.ref), r.ty(p.ref)
    lines.append(f"{ind}affine.store {sc.value(p.value)}, {ref}[{at}] : {ty}")
    for w in p.writes:
        lines += _probe_write(r, p, w, ind, k, sc)
    v = f"%fv{tag}"
    lines.append(f"{ind}{v} = affine.load {ref}[{at}] : {ty}")
    out = "%o" if sc.callee else f"%{p.out.name}"
    lines.append(f"{ind}affine.store {v}, {out}[{k or 0}] : {r.ty(p.out)}")
    if k is not None:
        lines.append(f"{ind[:-2]}}}")
    return lines


def _probe_write(r: _Renderer, p: Probe, w, ind: str, k: str | None, sc: _ProbeScope) -> list:
    """One write of the probed element (see `model.ProbeWrite`)."""
    ref, ty, val, elem = sc.ref(w.ref), r.ty(w.ref), sc.value(w.value), r.elem
    subs = _probe_subscripts(p, k)
    if w.kind == "loop":
        j = r.fresh("fwj")
        inner = ", ".join(subs[:-1] + [j])
        return [f"{ind}affine.for {j} = 0 to {_last_extent(w.ref)} {{",
                f"{ind}  affine.store {val}, {ref}[{inner}] : {ty}", f"{ind}}}"]
    if w.kind == "scf_if":
        lines: list = []
        b = sc.true() if sc.callee else r.cond(lines, ind, r.prog.inputs[0])
        return lines + [f"{ind}scf.if {b} {{", f"{ind}  affine.store {val}, {ref}[{', '.join(subs)}] : {ty}", f"{ind}}}"]
    if w.kind == "memref_store":
        lines, idx = [], []
        for d, c in enumerate(p.at):
            if k is not None and d == p.dim:
                if c:
                    s = r.fresh("fwi")
                    lines.append(f"{ind}{s} = arith.addi {k}, {sc.index(c)} : index")
                    idx.append(s)
                else:
                    idx.append(k)
            else:
                idx.append(sc.index(c))
        return lines + [f"{ind}memref.store {val}, {ref}[{', '.join(idx)}] : {ty}"]
    if w.kind == "vector_store":
        vt = f"vector<{w.width}x{elem}>"
        b = r.fresh("fwb")
        box = ", ".join(_probe_subscripts(p, k, w.back))
        return [f"{ind}{b} = vector.broadcast {val} : {elem} to {vt}",
                f"{ind}affine.vector_store {b}, {ref}[{box}] : {ty}, {vt}"]
    if w.kind == "copy":
        name = f"fwc{r.fresh('')[1:]}"
        r.globals.append(f"  memref.global \"private\" constant @{name} : {ty} = "
                         f"{_dense_text(r.prog.constants[w.value], elem)}")
        src = r.fresh("fws")
        return [f"{ind}{src} = memref.get_global @{name} : {ty}",
                f"{ind}memref.copy {src}, {ref} : {ty} to {ty}"]
    if w.kind == "call":
        params = f"%m: {ty}" + (", %k: index" if k is not None else "")
        inner = ", ".join(_probe_subscripts(p, "%k" if k is not None else None))
        r.helpers += [f"  func.func private @{w.callee}({params}) {{",
                      f"    %v = arith.constant {_const_text(r.prog.constants[w.value], elem)}",
                      f"    affine.store %v, %m[{inner}] : {ty}", "    return", "  }"]
        args, types = (f"{ref}, {k}", f"{ty}, index") if k is not None else (ref, ty)
        return [f"{ind}func.call @{w.callee}({args}) : ({types}) -> ()"]
    raise ValueError(f"unknown probe write {w.kind}")
