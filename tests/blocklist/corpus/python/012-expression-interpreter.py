"""A tiny recursive-descent interpreter for arithmetic with variables.

This exists so that config files can contain formulas like ``width * 2 + margin``
without anyone reaching for eval() on untrusted text; eval("__import__('os')")
would happily run arbitrary code, this parser only knows numbers and names.
"""
import re

TOKEN_RE = re.compile(r"\s*(?:(\d+\.?\d*)|([A-Za-z_]\w*)|(\*\*|[-+*/()=,]))")


def tokenize(src):
    pos, tokens = 0, []
    src = src.rstrip()
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        if not m:
            raise SyntaxError(f"unexpected character {src[pos]!r} at {pos}")
        num, name, op = m.groups()
        tokens.append(("num", float(num)) if num else ("name", name) if name else ("op", op))
        pos = m.end()
    tokens.append(("end", None))
    return tokens


class Parser:
    FUNCS = {"max": max, "min": min, "abs": abs}

    def __init__(self, tokens, env):
        self.tokens, self.i, self.env = tokens, 0, env

    def peek(self):
        return self.tokens[self.i]

    def take(self, value=None):
        tok = self.tokens[self.i]
        if value is not None and tok[1] != value:
            raise SyntaxError(f"expected {value!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def expr(self):
        value = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            value = value + self.term() if op == "+" else value - self.term()
        return value

    def term(self):
        value = self.power()
        while self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            rhs = self.power()
            value = value * rhs if op == "*" else value / rhs
        return value

    def power(self):
        base = self.unary()
        if self.peek()[1] == "**":
            self.take()
            return base ** self.power()
        return base

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return -self.unary()
        return self.atom()

    def atom(self):
        kind, val = self.take()
        if kind == "num":
            return val
        if kind == "name":
            if self.peek()[1] == "(":
                self.take("(")
                args = [self.expr()]
                while self.peek()[1] == ",":
                    self.take()
                    args.append(self.expr())
                self.take(")")
                return self.FUNCS[val](*args)
            if val not in self.env:
                raise NameError(f"undefined variable {val!r}")
            return self.env[val]
        if val == "(":
            inner = self.expr()
            self.take(")")
            return inner
        raise SyntaxError(f"unexpected token {val!r}")


def run(program):
    env = {}
    for line in program.strip().splitlines():
        name, _, formula = line.partition("=")
        env[name.strip()] = Parser(tokenize(formula), env).expr()
        print(f"{name.strip():>8} = {env[name.strip()]:g}")
    return env


if __name__ == "__main__":
    env = run("""
        width = 120
        margin = 8
        inner = width - 2 * margin
        columns = 3
        col = (inner - (columns - 1) * margin) / columns
        area = col ** 2
        clamp = max(min(col, 30), 10)
    """)
    assert env["inner"] == 104
    for bad in ["2 + ", "__import__('os')", "x * 2"]:
        try:
            Parser(tokenize(bad), {}).expr()
        except (SyntaxError, NameError) as e:
            print(f"rejected {bad!r}: {type(e).__name__}: {e}")
