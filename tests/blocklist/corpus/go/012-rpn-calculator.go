package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

var (
	ErrStackUnderflow = errors.New("stack underflow")
	ErrDivByZero      = errors.New("division by zero")
)

type Stack []float64

func (s *Stack) Push(v float64) { *s = append(*s, v) }
func (s *Stack) Pop() (float64, error) {
	if len(*s) == 0 {
		return 0, ErrStackUnderflow
	}
	v := (*s)[len(*s)-1]
	*s = (*s)[:len(*s)-1]
	return v, nil
}

type binop func(a, b float64) (float64, error)

var ops = map[string]binop{
	"+": func(a, b float64) (float64, error) { return a + b, nil },
	"-": func(a, b float64) (float64, error) { return a - b, nil },
	"*": func(a, b float64) (float64, error) { return a * b, nil },
	"/": func(a, b float64) (float64, error) {
		if b == 0 {
			return 0, ErrDivByZero
		}
		return a / b, nil
	},
	"^": func(a, b float64) (float64, error) { return math.Pow(a, b), nil },
}

func Eval(expr string) (float64, error) {
	var st Stack
	for _, tok := range strings.Fields(expr) {
		if op, ok := ops[tok]; ok {
			b, err := st.Pop()
			if err != nil {
				return 0, fmt.Errorf("%q: %w", tok, err)
			}
			a, err := st.Pop()
			if err != nil {
				return 0, fmt.Errorf("%q: %w", tok, err)
			}
			r, err := op(a, b)
			if err != nil {
				return 0, err
			}
			st.Push(r)
			continue
		}
		switch tok {
		case "sqrt":
			a, err := st.Pop()
			if err != nil {
				return 0, err
			}
			st.Push(math.Sqrt(a))
		case "dup":
			a, err := st.Pop()
			if err != nil {
				return 0, err
			}
			st.Push(a)
			st.Push(a)
		case "pi":
			st.Push(math.Pi)
		default:
			v, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return 0, fmt.Errorf("unknown token %q", tok)
			}
			st.Push(v)
		}
	}
	if len(st) != 1 {
		return 0, fmt.Errorf("expected exactly one value on stack, have %d", len(st))
	}
	return st[0], nil
}

func main() {
	exprs := []string{
		"3 4 + 2 *",
		"5 1 2 + 4 * + 3 -",
		"2 10 ^",
		"9 sqrt dup *",
		"pi 2 * 1.5 *",
		"1 0 /",
		"1 +",
		"1 2 3",
		"4 foo",
	}
	for _, e := range exprs {
		v, err := Eval(e)
		if err != nil {
			fmt.Printf("%-22s error: %v\n", e, err)
			continue
		}
		fmt.Printf("%-22s = %g\n", e, v)
	}
}
