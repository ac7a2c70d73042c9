package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

type Shape interface {
	Area() float64
	Perimeter() float64
	Name() string
}

// base is embedded to give every shape a label and a default Describe.
type base struct{ label string }

func (b base) Name() string { return b.label }

type Circle struct {
	base
	R float64
}

type Rect struct {
	base
	W, H float64
}

type Square struct{ Rect }

type Triangle struct {
	base
	A, B, C float64
}

func (c Circle) Area() float64      { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }
func (r Rect) Area() float64        { return r.W * r.H }
func (r Rect) Perimeter() float64   { return 2 * (r.W + r.H) }
func (t Triangle) Perimeter() float64 {
	return t.A + t.B + t.C
}
func (t Triangle) Area() float64 {
	s := t.Perimeter() / 2 // Heron's formula
	return math.Sqrt(s * (s - t.A) * (s - t.B) * (s - t.C))
}

func NewSquare(label string, side float64) Square {
	return Square{Rect{base{label}, side, side}}
}

type Scaler interface {
	Scale(f float64) Shape
}

func (c Circle) Scale(f float64) Shape { c.R *= f; return c }
func (r Rect) Scale(f float64) Shape   { r.W *= f; r.H *= f; return r }

func describe(s Shape) string {
	kind := strings.TrimPrefix(fmt.Sprintf("%T", s), "main.")
	return fmt.Sprintf("%-9s %-8s area=%8.3f perim=%7.3f", kind, s.Name(), s.Area(), s.Perimeter())
}

func main() {
	shapes := []Shape{
		Circle{base{"wheel"}, 1.5},
		Rect{base{"door"}, 0.9, 2.1},
		NewSquare("tile", 0.3),
		Triangle{base{"sail"}, 3, 4, 5},
		Circle{base{"coin"}, 0.012},
	}
	sort.Slice(shapes, func(i, j int) bool { return shapes[i].Area() > shapes[j].Area() })
	total := 0.0
	for _, s := range shapes {
		fmt.Println(describe(s))
		total += s.Area()
	}
	fmt.Printf("total area: %.3f\n\n", total)

	for _, s := range shapes {
		if sc, ok := s.(Scaler); ok {
			bigger := sc.Scale(2)
			fmt.Printf("%s scaled x2: area %.3f -> %.3f\n", s.Name(), s.Area(), bigger.Area())
		} else {
			fmt.Printf("%s cannot be scaled\n", s.Name())
		}
	}

	switch v := shapes[0].(type) {
	case Circle:
		fmt.Println("largest is a circle with radius", v.R)
	case Rect, Square:
		fmt.Println("largest is rectangular")
	default:
		fmt.Println("largest is something else")
	}
}
