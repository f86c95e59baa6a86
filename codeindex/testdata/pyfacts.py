"""pyfacts.py ROOT: the definitions and resolvable calls of the Python files under ROOT, by
Python's own ast module, as an independent check of codeindex's tree-sitter extraction.

Prints JSON lines:
  {"def": [path, line, name]}           every class, def and async def, at any depth
  {"call": [caller_fqn, callee_fqn]}     calls from a function or method that Python's
                                         scope rules resolve to a definition under ROOT:
                                         a nested or module-level name, a name imported from a
                                         module under ROOT, module.name, Class.name, and
                                         self.name / cls.name through the class and its bases
fqn: the dotted module (path under ROOT, __init__ dropped) and the qualified name.
"""
import ast
import json
import os
import sys

root = sys.argv[1]
mods = {}  # module name -> (path, tree)
for d, dirs, files in os.walk(root):
    dirs[:] = sorted(x for x in dirs if x not in ("__pycache__", "node_modules", ".git"))
    for f in sorted(files):
        if not f.endswith(".py"):
            continue
        p = os.path.relpath(os.path.join(d, f), root)
        m = p[:-3].replace(os.sep, ".")
        if m.endswith(".__init__"):
            m = m[: -len(".__init__")]
        elif m == "__init__":
            m = ""
        try:
            with open(os.path.join(d, f), "rb") as fh:
                tree = ast.parse(fh.read())
        except (SyntaxError, ValueError):
            continue
        mods[m] = (p, tree)


def out(**kv):
    print(json.dumps(kv))


def join(a, b):
    return a + "." + b if a else b


# Definitions, and per scope the names it defines.
scopes = {}  # fqn -> {name: (fqn, node)}
classes = {}  # fqn -> (module, ClassDef)
for m, (p, tree) in mods.items():
    def walk(node, fqn):
        table = scopes.setdefault(fqn, {})
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = join(fqn, ch.name)
                out(**{"def": [p.replace(os.sep, "/"), ch.lineno, ch.name]})
                table[ch.name] = (q, ch)
                if isinstance(ch, ast.ClassDef):
                    classes[q] = (m, ch)
                walk(ch, q)
            elif not isinstance(ch, (ast.Lambda,)):
                walk_inner(ch, fqn, table)

    def walk_inner(node, fqn, table):
        # definitions inside if/try/with blocks belong to the same scope
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = join(fqn, ch.name)
                out(**{"def": [p.replace(os.sep, "/"), ch.lineno, ch.name]})
                table.setdefault(ch.name, (q, ch))
                if isinstance(ch, ast.ClassDef):
                    classes[q] = (m, ch)
                walk(ch, q)
            else:
                walk_inner(ch, fqn, table)

    walk(tree, m)


def resolve_module(m, name, level):
    if level:
        base = m.split(".") if m else []
        is_pkg = mods[m][0].endswith("__init__.py")
        if not is_pkg:
            base = base[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return join(".".join(base), name) if name else ".".join(base)
    # ROOT is itself a package: its own absolute imports (oauthlib.common under ROOT=oauthlib)
    # name modules under it without that first part.
    top = os.path.basename(os.path.normpath(root)) + "."
    if name and name not in mods and name.startswith(top):
        return name[len(top):]
    if name == top[:-1] and name not in mods:
        return ""
    return name


# Imports: per module, local name -> ("def", fqn) or ("mod", module).
imports = {}
for m, (p, tree) in mods.items():
    b = imports.setdefault(m, {})
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = resolve_module(m, node.module, node.level)
            for a in node.names:
                if a.name == "*":
                    continue
                local = a.asname or a.name
                if src in mods and a.name in scopes.get(src, {}):
                    b[local] = ("def", scopes[src][a.name][0])
                elif join(src, a.name) in mods:
                    b[local] = ("mod", join(src, a.name))
        elif isinstance(node, ast.Import):
            for a in node.names:
                target = resolve_module(m, a.name, 0)
                if target in mods:
                    b[a.asname or a.name] = ("mod", target)


def lookup_name(m, chain, name):
    """chain: enclosing function fqns, innermost first."""
    for f in chain:
        if name in scopes.get(f, {}):
            return scopes[f][name][0]
    if name in scopes.get(m, {}):
        return scopes[m][name][0]
    kind, v = imports.get(m, {}).get(name, (None, None))
    if kind == "def":
        return v
    return None


def class_member(cfqn, name, depth=0):
    if depth > 5 or cfqn not in classes:
        return None
    if name in scopes.get(cfqn, {}):
        return scopes[cfqn][name][0]
    m, node = classes[cfqn]
    for base in node.bases:
        bf = None
        if isinstance(base, ast.Name):
            bf = lookup_name(m, [], base.id)
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            kind, v = imports.get(m, {}).get(base.value.id, (None, None))
            if kind == "mod" and base.attr in scopes.get(v, {}):
                bf = scopes[v][base.attr][0]
        if bf:
            r = class_member(bf, name, depth + 1)
            if r:
                return r
    return None


def dotted(e):
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        d = dotted(e.value)
        return d and d + "." + e.attr
    return None


def calls_in(node):
    """Calls in node's body, not descending into nested functions and classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Call):
            yield n
        stack.extend(ast.iter_child_nodes(n))


edges = set()
for m, (p, tree) in mods.items():
    def visit(node, fqn, chain, cls):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = join(fqn, ch.name)
                inner = [q] + chain
                for c in calls_in(ch):
                    target = None
                    f = c.func
                    if isinstance(f, ast.Name):
                        target = lookup_name(m, inner, f.id)
                    elif isinstance(f, ast.Attribute):
                        recv = dotted(f.value)
                        if recv in ("self", "cls") and cls:
                            target = class_member(cls, f.attr)
                        elif recv:
                            kind, v = imports.get(m, {}).get(recv, (None, None))
                            if kind == "mod":
                                if f.attr in scopes.get(v, {}):
                                    target = scopes[v][f.attr][0]
                            elif "." not in recv:
                                t = lookup_name(m, inner, recv)
                                if t in classes:
                                    target = class_member(t, f.attr)
                    if target and target != q:
                        edges.add((q, target))
                visit(ch, q, inner, None)
            elif isinstance(ch, ast.ClassDef):
                q = join(fqn, ch.name)
                visit(ch, q, chain, q)
            else:
                visit(ch, fqn, chain, cls)

    visit(tree, m, [], None)
for a, b in sorted(edges):
    out(call=[a, b])
