"""Random Linnet program generator (state writes mixed with control flow) and an
independent numpy evaluator of the generated programs.

gen_program(seed) -> Program with .render() (source), .calls (list of calls) and
.expected (list of list-of-np-arrays per call, in the order of result parts).
"""
import json
import random

import numpy as np

F32 = np.float32
SCALES = ["0.5", "2.0", "-1.0"]
CONSTS = ["0.25", "1.0", "0.5", "-0.75", "2.0"]


def v2(vals):
    return np.array(vals, dtype=F32)


# ----------------------------------------------------------------------------
# Expressions


class Expr:
    pass


class Name(Expr):  # local, param (x), let, var
    def __init__(self, name):
        self.name = name

    def render(self):
        return self.name

    def ev(self, env):
        return env.locals[self.name]


class StateRef(Expr):
    """owner: None (own state), ('sub', 'a'), ('idx', 'layers', 0), ('bound', 'l')."""

    def __init__(self, owner, name):
        self.owner, self.name = owner, name

    def render(self):
        if self.owner is None:
            return self.name
        return owner_text(self.owner) + "." + self.name

    def ev(self, env):
        inst = env.resolve(self.owner)
        return env.insts[inst][self.name]


def owner_text(owner):
    if owner[0] == "sub":
        return owner[1]
    if owner[0] == "idx":
        return "%s[%d]" % (owner[1], owner[2])
    if owner[0] == "bound":
        return owner[1]
    if owner[0] == "chosen":
        _, cond, arr = owner
        return "(if %s { %s[0] } else { %s[1] })" % (cond.render(), arr, arr)
    raise ValueError(owner)


class Index(Expr):
    def __init__(self, name, j):
        self.name, self.j = name, j

    def render(self):
        return "%s[%d]" % (self.name, self.j)

    def ev(self, env):
        return env.locals[self.name][self.j].copy()


class Bin(Expr):
    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def render(self):
        return "(%s %s %s)" % (self.a.render(), self.op, self.b.render())

    def ev(self, env):
        a = self.a.ev(env)
        b = self.b.ev(env)
        return (a + b) if self.op == "+" else (a - b)


class BinConst(Expr):
    def __init__(self, op, a, k):
        self.op, self.a, self.k = op, a, k

    def render(self):
        return "(%s %s %s)" % (self.a.render(), self.op, self.k)

    def ev(self, env):
        a = self.a.ev(env)
        k = F32(float(self.k))
        if self.op == "+":
            return a + k
        if self.op == "-":
            return a - k
        return a * k


class Neg(Expr):
    def __init__(self, a):
        self.a = a

    def render(self):
        return "(-%s)" % self.a.render()

    def ev(self, env):
        return -self.a.ev(env)


class LoopScale(Expr):  # e * cast<f32>(i)
    def __init__(self, a, i):
        self.a, self.i = a, i

    def render(self):
        return "(%s * cast<f32>(%s))" % (self.a.render(), self.i)

    def ev(self, env):
        a = self.a.ev(env)
        return a * F32(env.locals[self.i])


class Cond:
    """c, !c, or n > k."""

    def __init__(self, kind, arg=None):
        self.kind, self.arg = kind, arg

    def render(self):
        if self.kind == "c":
            return "c"
        if self.kind == "!c":
            return "!c"
        if self.kind == "ngt":
            return "n > %d" % self.arg
        if self.kind == "lit":
            return "true" if self.arg else "false"
        raise ValueError

    def ev(self, env):
        if self.kind == "c":
            return bool(env.locals["c"])
        if self.kind == "!c":
            return not env.locals["c"]
        if self.kind == "ngt":
            return env.locals["n"] > self.arg
        if self.kind == "lit":
            return self.arg


class If(Expr):
    def __init__(self, cond, t, e):
        self.cond, self.t, self.e = cond, t, e

    def render(self, top=False):
        s = "if %s { %s } else { %s }" % (self.cond.render(), strip(self.t.render()),
                                          strip(self.e.render()))
        return s if top else "(" + s + ")"

    def ev(self, env):
        if self.cond.ev(env):
            return self.t.ev(env)
        return self.e.ev(env)


def strip(s):
    # drop one level of outer parentheses when they enclose the whole text
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0 and i != len(s) - 1:
                    return s
        return s[1:-1]
    return s


class Call(Expr):
    """recv: owner tuple; args: list of (kind, value) matching method signature."""

    def __init__(self, owner, method, args):
        self.owner, self.method, self.args = owner, method, args

    def render(self):
        parts = []
        for a in self.args:
            if isinstance(a, Expr):
                parts.append(strip(a.render()))
            elif isinstance(a, Cond):
                parts.append(a.render())
            elif isinstance(a, int):
                parts.append(str(a))
            elif isinstance(a, str):
                parts.append(a)
        return "%s.%s(%s)" % (owner_text(self.owner), self.method, ", ".join(parts))

    def ev(self, env):
        inst = env.resolve(self.owner)
        vals = []
        for a in self.args:
            if isinstance(a, Expr) or isinstance(a, Cond):
                vals.append(a.ev(env))
            elif isinstance(a, int):
                vals.append(a)
            elif isinstance(a, str):  # a name: n
                vals.append(env.locals[a])
        return env.prog.call_method(inst, self.method, vals)


# ----------------------------------------------------------------------------
# Statements


class Stmt:
    pass


class AssignState(Stmt):
    def __init__(self, name, e):
        self.name, self.e = name, e

    def render(self, ind):
        r = self.e.render(top=True) if isinstance(self.e, If) else strip(self.e.render())
        return [ind + "%s = %s" % (self.name, r)]

    def ev(self, env):
        v = self.e.ev(env)
        env.insts[env.self_inst][self.name] = v


class Local(Stmt):
    """kind: 'var' (declare), 'let' (declare), 'set' (assign a var)."""

    def __init__(self, kind, name, e):
        self.kind, self.name, self.e = kind, name, e

    def render(self, ind):
        r = self.e.render(top=True) if isinstance(self.e, If) else strip(self.e.render())
        if self.kind == "set":
            return [ind + "%s = %s" % (self.name, r)]
        return [ind + "%s %s = %s" % (self.kind, self.name, r)]

    def ev(self, env):
        env.locals[self.name] = self.e.ev(env)


class While(Stmt):
    def __init__(self, counter, bound, body):
        self.counter, self.bound, self.body = counter, bound, body

    def render(self, ind):
        out = [ind + "var %s: i32 = 0" % self.counter,
               ind + "while %s < %s {" % (self.counter, self.bound)]
        for s in self.body:
            out += s.render(ind + "    ")
        out.append(ind + "    %s = %s + 1" % (self.counter, self.counter))
        out.append(ind + "}")
        return out

    def ev(self, env):
        env.locals[self.counter] = 0
        bound = self.bound if isinstance(self.bound, int) else env.locals[self.bound]
        while env.locals[self.counter] < bound:
            for s in self.body:
                s.ev(env)
            env.locals[self.counter] += 1


class For(Stmt):
    def __init__(self, var, k, body):
        self.var, self.k, self.body = var, k, body

    def render(self, ind):
        out = [ind + "for %s in 0..%d {" % (self.var, self.k)]
        for s in self.body:
            out += s.render(ind + "    ")
        out.append(ind + "}")
        return out

    def ev(self, env):
        for i in range(self.k):
            env.locals[self.var] = i
            for s in self.body:
                s.ev(env)


class Scan(Stmt):
    def __init__(self, name, var, k, body, y):
        self.name, self.var, self.k, self.body, self.y = name, var, k, body, y

    def render(self, ind):
        out = [ind + "let %s = for %s in 0..%d {" % (self.name, self.var, self.k)]
        for s in self.body:
            out += s.render(ind + "    ")
        out.append(ind + "    yield %s" % strip(self.y.render()))
        out.append(ind + "}")
        return out

    def ev(self, env):
        rows = []
        for i in range(self.k):
            env.locals[self.var] = i
            for s in self.body:
                s.ev(env)
            rows.append(self.y.ev(env))
        env.locals[self.name] = np.stack(rows).astype(F32)


class StaticFor(Stmt):
    def __init__(self, var, arr, body):
        self.var, self.arr, self.body = var, arr, body

    def render(self, ind):
        out = [ind + "static for %s in %s {" % (self.var, self.arr)]
        for s in self.body:
            out += s.render(ind + "    ")
        out.append(ind + "}")
        return out

    def ev(self, env):
        for j in range(2):
            env.bound[self.var] = "%s.%d" % (self.arr, j)
            for s in self.body:
                s.ev(env)
        del env.bound[self.var]


# ----------------------------------------------------------------------------
# Program model


class Method:
    def __init__(self, name, params, body, ret, is_entry=False):
        self.name, self.params, self.body, self.ret = name, params, body, ret
        self.is_entry = is_entry

    def sig(self):
        ps = []
        for p in self.params:
            ps.append({"x": "x: Tensor[2; f32]", "c": "c: bool", "n": "n: i32"}[p])
        return ", ".join(ps)


class BlockType:
    def __init__(self, name, states):
        self.name, self.states = name, states
        self.methods = {}
        self.subs = []  # (name, type name, count or None)


class Env:
    def __init__(self, prog, self_inst, local_vals):
        self.prog, self.self_inst = prog, self_inst
        self.insts = prog.insts
        self.locals = dict(local_vals)
        self.bound = {}

    def resolve(self, owner):
        base = self.self_inst
        pre = "" if base == "root" else base + "."
        if owner is None:
            return base
        if owner[0] == "sub":
            return pre + owner[1]
        if owner[0] == "idx":
            return pre + "%s.%d" % (owner[1], owner[2])
        if owner[0] == "bound":
            return self.bound[owner[1]]
        if owner[0] == "chosen":
            _, cond, arr = owner
            return pre + "%s.%d" % (arr, 0 if cond.ev(self) else 1)
        raise ValueError(owner)


class Program:
    def __init__(self):
        self.types = {}  # name -> BlockType
        self.root = None
        self.inst_type = {}  # inst id -> type name
        self.insts = {}
        self.calls = []

    def reset(self):
        self.insts = {}
        for inst, t in self.inst_type.items():
            self.insts[inst] = {s: np.zeros(2, F32) for s in self.types[t].states}

    def call_method(self, inst, mname, vals):
        bt = self.types[self.inst_type[inst]]
        m = bt.methods[mname]
        env = Env(self, inst, dict(zip(m.params, vals)))
        for s in m.body:
            s.ev(env)
        if isinstance(m.ret, list):
            return [r.ev(env) for r in m.ret]
        return m.ret.ev(env)

    def all_states(self):
        out = []
        for inst in self.inst_order:
            for s in self.types[self.inst_type[inst]].states:
                out.append((inst, s))
        return out

    def render(self):
        lines = ["module fz", ""]
        for tname in self.type_order:
            bt = self.types[tname]
            lines.append("block %s {" % tname)
            for s in bt.states:
                lines.append("    state %s: Tensor[2; f32]" % s)
            for (sn, st, cnt) in bt.subs:
                if cnt is None:
                    lines.append("    sub %s: %s" % (sn, st))
                else:
                    lines.append("    sub %s: [%s; %d]" % (sn, st, cnt))
            for m in bt.methods.values():
                lines.append("")
                kw = "pub entry" if m.is_entry else "pub fn"
                if isinstance(m.ret, list):
                    rty = "(" + ", ".join(["Tensor[2; f32]"] * len(m.ret)) + ")"
                    rtxt = "(" + ", ".join(strip(r.render()) for r in m.ret) + ")"
                    if len(m.ret) == 1:
                        rty = "Tensor[2; f32]"
                        rtxt = strip(m.ret[0].render())
                else:
                    rty = "Tensor[2; f32]"
                    rtxt = m.ret.render(top=True) if isinstance(m.ret, If) else strip(m.ret.render())
                lines.append("    %s %s(%s) -> %s {" % (kw, m.name, m.sig(), rty))
                for s in m.body:
                    lines += s.render("        ")
                lines.append("        return %s" % rtxt)
                lines.append("    }")
            lines.append("}")
            lines.append("")
        return "\n".join(lines)

    def run_calls(self):
        """Evaluate self.calls from zero state; returns list of result-part lists."""
        self.reset()
        results = []
        for call in self.calls:
            m = self.types[self.root].methods[call["entry"]]
            vals = []
            for p in m.params:
                a = call["args"][p]
                vals.append(v2(a) if p == "x" else a)
            r = self.call_method("root", call["entry"], vals)
            results.append(r if isinstance(r, list) else [r])
        return results


# ----------------------------------------------------------------------------
# Generator


class GenCtx:
    def __init__(self, g, btype, params, is_entry):
        self.g = g
        self.bt = btype
        self.params = params
        self.is_entry = is_entry
        self.vars = []  # assignable tensor locals in scope
        self.lets = []  # read-only tensor locals in scope
        self.scans = []  # (name, k)
        self.loopis = []  # i64 loop vars in scope
        self.bound = None  # static for element name
        self.depth = 0
        self.loop_depth = 0

    def scoped(self):
        return (list(self.vars), list(self.lets), list(self.scans), list(self.loopis), self.bound)

    def restore(self, s):
        self.vars, self.lets, self.scans, self.loopis, self.bound = [list(x) if isinstance(x, list) else x
                                                                   for x in s]


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.counter = 0

    def fresh(self, p):
        self.counter += 1
        return "%s%d" % (p, self.counter)

    # -------------------------------------------------- expressions
    def cond(self, ctx):
        r = self.r.random()
        if "n" in ctx.params and r < 0.12:
            return Cond("ngt", self.r.randint(0, 2))
        if "c" not in ctx.params:
            return Cond("lit", self.r.random() < 0.5)
        return Cond("c") if r < 0.6 else Cond("!c")

    def sub_owners(self, ctx):
        """Owners whose state/methods can be reached from ctx."""
        owners = []
        for (sn, st, cnt) in ctx.bt.subs:
            if cnt is None:
                owners.append((("sub", sn), st))
            else:
                for j in range(cnt):
                    owners.append((("idx", sn, j), st))
        if ctx.bound is not None:
            owners.append((("bound", ctx.bound[0]), ctx.bound[1]))
        return owners

    def atom(self, ctx):
        r = self.r
        choices = []
        if "x" in ctx.params:
            choices += [lambda: Name("x")] * 3
        for s in ctx.bt.states:
            choices += [lambda s=s: StateRef(None, s)] * 3
        for v in ctx.vars + ctx.lets:
            choices += [lambda v=v: Name(v)] * 2
        for (ys, k) in ctx.scans:
            choices.append(lambda ys=ys, k=k: Index(ys, r.randrange(k)))
        for (owner, st) in self.sub_owners(ctx):
            for s in self.prog.types[st].states:
                choices.append(lambda owner=owner, s=s: StateRef(owner, s))
        if not choices:
            raise RuntimeError("no atoms")
        return r.choice(choices)()

    def call(self, ctx, depth):
        r = self.r
        owners = self.sub_owners(ctx)
        arrays = [(sn, st) for (sn, st, cnt) in ctx.bt.subs if cnt is not None]
        opts = list(owners)
        if arrays and "c" in ctx.params:
            for (sn, st) in arrays:
                opts += [(("chosen", self.cond(ctx), sn), st)] * 2
        if ctx.bound is not None:
            opts += [(("bound", ctx.bound[0]), ctx.bound[1])] * 3
        if not opts:
            return None
        owner, st = r.choice(opts)
        bt = self.prog.types[st]
        m = r.choice(list(bt.methods.values()))
        args = []
        for p in m.params:
            if p == "x":
                args.append(self.expr(ctx, depth + 1, allow_call=(depth < 1 and r.random() < 0.3)))
            elif p == "c":
                if "c" in ctx.params:
                    args.append(self.cond(ctx) if r.random() < 0.85 else Cond("lit", r.random() < 0.5))
                else:
                    args.append(Cond("lit", r.random() < 0.5))
            elif p == "n":
                if "n" in ctx.params and r.random() < 0.6:
                    args.append("n")
                else:
                    args.append(r.randint(0, 3))
        return Call(owner, m.name, args)

    def expr(self, ctx, depth=0, allow_call=True):
        r = self.r
        if depth >= 3 or r.random() < 0.3 + 0.15 * depth:
            if allow_call and r.random() < 0.35:
                c = self.call(ctx, depth)
                if c is not None:
                    return c
            return self.atom(ctx)
        k = r.random()
        if k < 0.35:
            return Bin(r.choice("+-"), self.expr(ctx, depth + 1, allow_call), self.expr(ctx, depth + 1, allow_call))
        if k < 0.5:
            return BinConst("*", self.expr(ctx, depth + 1, allow_call), r.choice(SCALES))
        if k < 0.6:
            return BinConst(r.choice("+-"), self.expr(ctx, depth + 1, allow_call), r.choice(CONSTS))
        if k < 0.65:
            return Neg(self.expr(ctx, depth + 1, allow_call))
        if k < 0.72 and ctx.loopis:
            return LoopScale(self.expr(ctx, depth + 1, allow_call), r.choice(ctx.loopis))
        if k < 0.9:
            return If(self.cond(ctx), self.expr(ctx, depth + 1, allow_call), self.expr(ctx, depth + 1, allow_call))
        if allow_call:
            c = self.call(ctx, depth)
            if c is not None:
                return c
        return self.atom(ctx)

    # -------------------------------------------------- statements
    def stmts(self, ctx, n):
        out = []
        for _ in range(n):
            out.append(self.stmt(ctx))
        return out

    def stmt(self, ctx):
        r = self.r
        k = r.random()
        can_loop = ctx.loop_depth < 2
        if k < 0.32 and ctx.bt.states:
            s = r.choice(ctx.bt.states)
            if r.random() < 0.4:
                e = If(self.cond(ctx), self.expr(ctx, 1), self.expr(ctx, 1))
            else:
                e = self.expr(ctx)
            return AssignState(s, e)
        if k < 0.42:
            name = self.fresh("v")
            e = self.expr(ctx)
            ctx.vars.append(name)
            return Local("var", name, e)
        if k < 0.52 and ctx.vars:
            name = r.choice(ctx.vars)
            return Local("set", name, self.expr(ctx))
        if k < 0.58:
            name = self.fresh("t")
            e = self.expr(ctx)
            ctx.lets.append(name)
            return Local("let", name, e)
        if k < 0.66 and self.sub_owners(ctx):
            c = self.call(ctx, 0)
            if c is not None:
                if ctx.vars and r.random() < 0.5:
                    return Local("set", r.choice(ctx.vars), c)
                name = self.fresh("_r")
                return Local("let", name, c)
        if k < 0.76 and can_loop:
            counter = self.fresh("k")
            if "n" in ctx.params and r.random() < 0.5:
                bound = "n"
            else:
                bound = r.randint(0, 3)
            saved = ctx.scoped()
            ctx.loop_depth += 1
            body = self.stmts(ctx, r.randint(1, 3))
            ctx.loop_depth -= 1
            ctx.restore(saved)
            return While(counter, bound, body)
        if k < 0.85 and can_loop:
            use = r.random() < 0.4
            var = self.fresh("j") if use else self.fresh("_j")
            kk = r.randint(1, 3)
            saved = ctx.scoped()
            if use:
                ctx.loopis.append(var)
            ctx.loop_depth += 1
            body = self.stmts(ctx, r.randint(1, 3))
            ctx.loop_depth -= 1
            ctx.restore(saved)
            return For(var, kk, body)
        if k < 0.92 and can_loop:
            name = self.fresh("ys")
            var = self.fresh("j")
            kk = r.randint(1, 3)
            saved = ctx.scoped()
            ctx.loopis.append(var)
            ctx.loop_depth += 1
            body = self.stmts(ctx, r.randint(0, 2))
            y = self.expr(ctx)
            ctx.loop_depth -= 1
            ctx.restore(saved)
            ctx.scans.append((name, kk))
            return Scan(name, var, kk, body, y)
        arrays = [(sn, st) for (sn, st, cnt) in ctx.bt.subs if cnt is not None]
        if arrays and ctx.bound is None and can_loop:
            sn, st = r.choice(arrays)
            var = self.fresh("l")
            saved = ctx.scoped()
            ctx.bound = (var, st)
            ctx.loop_depth += 1
            body = []
            # make sure the element's method is called most of the time
            nb = r.randint(1, 3)
            for _ in range(nb):
                if r.random() < 0.5:
                    c = self.call_on_bound(ctx)
                    if ctx.vars and r.random() < 0.6:
                        body.append(Local("set", r.choice(ctx.vars), c))
                    else:
                        body.append(Local("let", self.fresh("_r"), c))
                else:
                    body.append(self.stmt(ctx))
            ctx.loop_depth -= 1
            ctx.restore(saved)
            return StaticFor(var, sn, body)
        # fallback: a var
        name = self.fresh("v")
        e = self.expr(ctx)
        ctx.vars.append(name)
        return Local("var", name, e)

    def call_on_bound(self, ctx):
        r = self.r
        var, st = ctx.bound
        bt = self.prog.types[st]
        m = r.choice(list(bt.methods.values()))
        args = []
        for p in m.params:
            if p == "x":
                args.append(self.expr(ctx, 1, allow_call=False))
            elif p == "c":
                args.append(self.cond(ctx) if "c" in ctx.params else Cond("lit", r.random() < 0.5))
            else:
                args.append("n" if "n" in ctx.params and r.random() < 0.6 else r.randint(0, 3))
        return Call(("bound", var), m.name, args)

    def ret(self, ctx, is_entry):
        r = self.r
        k = r.random()
        if k < 0.3 and ctx.bt.states:
            return StateRef(None, r.choice(ctx.bt.states))
        if k < 0.45 and "x" in ctx.params:
            return Name("x")
        if k < 0.55 and ctx.vars:
            return Name(r.choice(ctx.vars))
        if k < 0.65 and ctx.bt.states and "c" in ctx.params:
            return If(self.cond(ctx), StateRef(None, r.choice(ctx.bt.states)), self.expr(ctx, 2))
        return self.expr(ctx, 1)

    def method(self, bt, name, is_entry, nstmts):
        r = self.r
        params = ["x"]
        if r.random() < 0.85:
            params.append("c")
        if r.random() < 0.4:
            params.append("n")
        ctx = GenCtx(self, bt, params, is_entry)
        body = self.stmts(ctx, nstmts)
        ret = self.ret(ctx, is_entry)
        return Method(name, params, body, ret, is_entry)

    def program(self):
        r = self.r
        p = Program()
        self.prog = p
        # child types
        nchild = r.choice([1, 1, 2])
        child_names = ["Cell", "Layer"][:nchild]
        for cn in child_names:
            bt = BlockType(cn, ["h%d_%s" % (i, cn[0].lower()) for i in range(r.randint(1, 2))])
            p.types[cn] = bt
            for mi in range(r.randint(1, 3)):
                mname = "m%d" % mi
                bt.methods[mname] = self.method(bt, mname, False, r.randint(1, 3))
        root = BlockType("Net", ["s%d" % i for i in range(r.randint(1, 3))])
        p.types["Net"] = root
        # subs
        layout = r.choice(["single", "array", "both", "both", "array"])
        if layout in ("single", "both"):
            root.subs.append(("a", child_names[0], None))
        if layout in ("array", "both"):
            root.subs.append(("layers", child_names[-1], 2))
        p.root = "Net"
        p.type_order = child_names + ["Net"]
        p.inst_type = {"root": "Net"}
        p.inst_order = ["root"]
        for (sn, st, cnt) in root.subs:
            if cnt is None:
                p.inst_type[sn] = st
                p.inst_order.append(sn)
            else:
                for j in range(cnt):
                    p.inst_type["%s.%d" % (sn, j)] = st
                    p.inst_order.append("%s.%d" % (sn, j))
        nentries = r.randint(2, 4)
        for ei in range(nentries):
            ename = "e%d" % ei
            root.methods[ename] = self.method(root, ename, True, r.randint(2, 6))
        # read entry
        rets = []
        for (inst, s) in p.all_states():
            if inst == "root":
                rets.append(StateRef(None, s))
            else:
                parts = inst.split(".")
                owner = ("sub", parts[0]) if len(parts) == 1 else ("idx", parts[0], int(parts[1]))
                rets.append(StateRef(owner, s))
        root.methods["read"] = Method("read", [], [], rets, True)
        # calls
        ncalls = r.randint(6, 10)
        entries = ["e%d" % i for i in range(nentries)]
        calls = []
        for ci in range(ncalls):
            if ci == ncalls - 1:
                en = "read"
            elif r.random() < 0.1:
                en = "read"
            else:
                en = entries[ci % nentries] if r.random() < 0.6 else r.choice(entries)
            m = root.methods[en]
            args = {}
            for prm in m.params:
                if prm == "x":
                    args["x"] = [r.randint(-8, 8) / 4.0 for _ in range(2)]
                elif prm == "c":
                    args["c"] = (ci % 2 == 0) if r.random() < 0.7 else (r.random() < 0.5)
                elif prm == "n":
                    args["n"] = r.randint(0, 3)
            calls.append({"entry": en, "args": args})
        p.calls = calls
        return p


def gen_program(seed):
    g = Gen(seed)
    p = g.program()
    return p


if __name__ == "__main__":
    import sys
    p = gen_program(int(sys.argv[1]))
    print(p.render())
    res = p.run_calls()
    for c, r in zip(p.calls, res):
        print(json.dumps(c), [x.tolist() for x in r])
