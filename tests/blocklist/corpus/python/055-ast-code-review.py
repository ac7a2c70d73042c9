"""Static review of Python snippets submitted to a plugin store.

Snippets are parsed with the ast module and never executed. The checker reports
calls such as eval(), exec(), os.system() and imports of ctypes, which reviewers
want to look at by hand.
"""
import ast
import textwrap

RISKY_CALLS = {"eval", "exec", "compile", "__import__"}
RISKY_ATTRS = {("os", "system"), ("os", "popen"), ("subprocess", "Popen"), ("pickle", "loads")}
RISKY_MODULES = {"ctypes", "pickle", "marshal"}

SUBMISSIONS = {
    "calculator_plugin.py": '''
        import math

        def area(r):
            """Unlike eval(input()), this only does maths."""
            return math.pi * r ** 2
    ''',
    "cleanup_plugin.py": '''
        import os, shutil

        def cleanup(path):
            # os.system("rm -rf " + path) was the old, unsafe version
            shutil.rmtree(path, ignore_errors=True)
            os.system(f"echo cleaned {path}")
    ''',
    "fast_plugin.py": '''
        import ctypes
        from pickle import loads as _l

        def run(expr, blob):
            value = eval(expr, {"__builtins__": {}})
            return value, _l(blob)
    ''',
    "broken_plugin.py": '''
        def oops(:
            pass
    ''',
}


class Reviewer(ast.NodeVisitor):
    def __init__(self):
        self.findings = []

    def flag(self, node, msg):
        self.findings.append((node.lineno, msg))

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.split(".")[0] in RISKY_MODULES:
                self.flag(node, f"imports {alias.name}")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        if (node.module or "").split(".")[0] in RISKY_MODULES:
            self.flag(node, f"imports from {node.module}: {', '.join(a.name for a in node.names)}")
        self.generic_visit(node)

    def visit_Call(self, node):
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id in RISKY_CALLS:
            self.flag(node, f"calls {fn.id}()")
        elif isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name):
            if (fn.value.id, fn.attr) in RISKY_ATTRS:
                arg = ast.unparse(node.args[0]) if node.args else ""
                self.flag(node, f"calls {fn.value.id}.{fn.attr}({arg})")
        self.generic_visit(node)


def review(source):
    tree = ast.parse(textwrap.dedent(source))
    r = Reviewer()
    r.visit(tree)
    return sorted(r.findings)


def main():
    summary = {}
    for name, src in SUBMISSIONS.items():
        try:
            findings = review(src)
        except SyntaxError as exc:
            print(f"{name}: does not parse ({exc.msg}, line {exc.lineno})")
            summary[name] = "error"
            continue
        summary[name] = len(findings)
        print(f"{name}: {len(findings) or 'no'} finding(s)")
        for line, msg in findings:
            print(f"    line {line}: {msg}")
    assert summary["calculator_plugin.py"] == 0
    assert summary["cleanup_plugin.py"] == 1
    assert summary["fast_plugin.py"] == 3
    print("summary:", summary)


if __name__ == "__main__":
    main()
