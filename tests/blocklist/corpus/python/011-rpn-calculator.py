import math
import operator

BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "^": operator.pow,
    "%": operator.mod,
}
UNARY = {"sqrt": math.sqrt, "neg": operator.neg, "abs": abs, "ln": math.log}
CONSTANTS = {"pi": math.pi, "e": math.e}


class RPNError(Exception):
    pass


def evaluate(expression):
    stack = []
    for token in expression.split():
        if token in BINARY:
            if len(stack) < 2:
                raise RPNError(f"operator {token!r} needs two operands")
            b, a = stack.pop(), stack.pop()
            try:
                stack.append(BINARY[token](a, b))
            except ZeroDivisionError:
                raise RPNError("division by zero") from None
        elif token in UNARY:
            if not stack:
                raise RPNError(f"function {token!r} needs an operand")
            stack.append(UNARY[token](stack.pop()))
        elif token in CONSTANTS:
            stack.append(CONSTANTS[token])
        elif token == "dup":
            stack.append(stack[-1])
        elif token == "swap":
            stack[-1], stack[-2] = stack[-2], stack[-1]
        else:
            try:
                stack.append(float(token))
            except ValueError:
                raise RPNError(f"unknown token {token!r}") from None
    if len(stack) != 1:
        raise RPNError(f"expected one result, stack is {stack}")
    return stack[0]


CASES = [
    "3 4 + 2 *",
    "5 1 2 + 4 * + 3 -",
    "2 3 ^ sqrt",
    "pi 2 / dup *",
    "1 e ln swap -",
    "10 0 /",
    "1 +",
    "2 3",
    "4 banana *",
]


def main():
    for case in CASES:
        try:
            value = evaluate(case)
            print(f"{case:<22} = {value:g}")
        except RPNError as err:
            print(f"{case:<22} ! {err}")
    assert evaluate("3 4 + 2 *") == 14
    assert evaluate("5 1 2 + 4 * + 3 -") == 14


if __name__ == "__main__":
    main()
