"""A very small Forth-like stack language with user-defined words."""


class ForthError(Exception):
    pass


class Forth:
    def __init__(self, out=print):
        self.stack, self.words, self.out = [], {}, out
        self.builtins = {
            "+": lambda: self._binop(lambda a, b: a + b),
            "-": lambda: self._binop(lambda a, b: a - b),
            "*": lambda: self._binop(lambda a, b: a * b),
            "/": lambda: self._binop(self._div),
            "mod": lambda: self._binop(lambda a, b: a % b),
            "=": lambda: self._binop(lambda a, b: -1 if a == b else 0),
            "<": lambda: self._binop(lambda a, b: -1 if a < b else 0),
            "dup": lambda: self.stack.append(self._peek()),
            "drop": lambda: self._pop(),
            "swap": lambda: self.stack.extend([self._pop(), self._pop()]),
            "over": lambda: self.stack.append(self.stack[-2]),
            ".": lambda: self.out(self._pop()),
            ".s": lambda: self.out(f"<{len(self.stack)}> {self.stack}"),
        }

    @staticmethod
    def _div(a, b):
        if b == 0:
            raise ForthError("division by zero")
        return a // b

    def _pop(self):
        if not self.stack:
            raise ForthError("stack underflow")
        return self.stack.pop()

    def _peek(self):
        if not self.stack:
            raise ForthError("stack underflow")
        return self.stack[-1]

    def _binop(self, fn):
        b, a = self._pop(), self._pop()
        self.stack.append(fn(a, b))

    def run(self, source):
        tokens = source.lower().split()
        self._execute(tokens)

    def _execute(self, tokens):
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok == ":":
                end = tokens.index(";", i)
                name, body = tokens[i + 1], tokens[i + 2:end]
                if name.lstrip("-").isdigit():
                    raise ForthError("cannot redefine numbers")
                self.words[name] = [t for w in body for t in self.words.get(w, [w])]
                i = end + 1
                continue
            if tok == "if":
                depth, j, else_at = 0, i + 1, None
                while not (tokens[j] == "then" and depth == 0):
                    depth += {"if": 1, "then": -1}.get(tokens[j], 0)
                    if tokens[j] == "else" and depth == 0:
                        else_at = j
                    j += 1
                cond = self._pop()
                branch = tokens[i + 1:else_at or j] if cond else (tokens[else_at + 1:j] if else_at else [])
                self._execute(branch)
                i = j + 1
                continue
            if tok in self.words:
                self._execute(self.words[tok])
            elif tok in self.builtins:
                self.builtins[tok]()
            else:
                try:
                    self.stack.append(int(tok))
                except ValueError:
                    raise ForthError(f"unknown word {tok!r}") from None
            i += 1


if __name__ == "__main__":
    f = Forth(out=lambda v: print("  out:", v))
    programs = [
        "1 2 + 4 * .",
        ": square dup * ; : cube dup square * ; 3 cube .",
        ": abs dup 0 < if 0 swap - then ; -7 abs . 5 abs .",
        ": sign dup 0 < if drop -1 else 0 = if 0 else 1 then then ; -3 sign . 0 sign . 9 sign .",
        "10 3 mod . 10 3 / . 1 2 3 .s drop drop drop",
        "1 0 /",
        "drop",
        "2 frobnicate",
    ]
    for src in programs:
        print(f"> {src}")
        try:
            f.run(src)
        except ForthError as e:
            print("  error:", e)
            f.stack.clear()
