package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// A tiny interpreter for lines like "x = 3 * (y + 2)". Grammar:
//   stmt   := ident '=' expr | expr
//   expr   := term (('+'|'-') term)*
//   term   := factor (('*'|'/'|'%') factor)*
//   factor := number | ident | '(' expr ')' | '-' factor

type parser struct {
	toks []string
	pos  int
	env  map[string]int
}

var spacer = strings.NewReplacer("+", " + ", "-", " - ", "*", " * ", "/", " / ",
	"%", " % ", "(", " ( ", ")", " ) ", "=", " = ")

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *parser) next() string { t := p.peek(); p.pos++; return t }

// binary handles one precedence level; ops lists its operators.
func (p *parser) binary(ops string, operand func() int) int {
	v := operand()
	for op := p.peek(); op != "" && strings.Contains(ops, op); op = p.peek() {
		p.next()
		r := operand()
		switch {
		case op == "+":
			v += r
		case op == "-":
			v -= r
		case op == "*":
			v *= r
		case r == 0:
			panic("division by zero")
		case op == "/":
			v /= r
		default:
			v %= r
		}
	}
	return v
}

func (p *parser) expr() int { return p.binary("+-", p.term) }
func (p *parser) term() int { return p.binary("*/%", p.factor) }

func (p *parser) factor() int {
	t := p.next()
	switch {
	case t == "(":
		v := p.expr()
		if p.next() != ")" {
			panic("expected )")
		}
		return v
	case t == "-":
		return -p.factor()
	case t != "" && unicode.IsDigit(rune(t[0])):
		n, _ := strconv.Atoi(t)
		return n
	case t != "" && unicode.IsLetter(rune(t[0])):
		v, ok := p.env[t]
		if !ok {
			panic(fmt.Sprintf("undefined variable %q", t))
		}
		return v
	}
	panic(fmt.Sprintf("unexpected token %q", t))
}

func run(line string, env map[string]int) (res string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p := &parser{toks: strings.Fields(spacer.Replace(line)), env: env}
	if len(p.toks) > 2 && p.toks[1] == "=" {
		name := p.toks[0]
		p.pos = 2
		env[name] = p.expr()
		return fmt.Sprintf("%s := %d", name, env[name]), nil
	}
	return strconv.Itoa(p.expr()), nil
}

func main() {
	env := map[string]int{}
	program := `width = 12
height = 7
area = width * height
area - (width + height) * 2
rest = area % 5
-(rest - 10) / 3
depth * 2
10 / (height - 7)
(1 + 2`
	for _, line := range strings.Split(program, "\n") {
		out, err := run(line, env)
		if err != nil {
			out = "error: " + err.Error()
		}
		fmt.Printf("%-28s → %s\n", line, out)
	}
}
