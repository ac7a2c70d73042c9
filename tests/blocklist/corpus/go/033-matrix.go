package main

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

type Matrix [][]float64

func New(r, c int) Matrix {
	m := make(Matrix, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func Identity(n int) Matrix {
	m := New(n, n)
	for i := 0; i < n; i++ {
		m[i][i] = 1
	}
	return m
}

func (a Matrix) Mul(b Matrix) (Matrix, error) {
	if len(a[0]) != len(b) {
		return nil, fmt.Errorf("shape mismatch: %dx%d * %dx%d", len(a), len(a[0]), len(b), len(b[0]))
	}
	out := New(len(a), len(b[0]))
	for i := range a {
		for j := range b[0] {
			for k := range b {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out, nil
}

// Inverse uses Gauss-Jordan elimination with partial pivoting and also
// returns the determinant.
func (a Matrix) Inverse() (Matrix, float64, error) {
	n := len(a)
	aug := New(n, 2*n)
	for i := range a {
		copy(aug[i], a[i])
		aug[i][n+i] = 1
	}
	det := 1.0
	for col := 0; col < n; col++ {
		pivot := col
		for r := col + 1; r < n; r++ {
			if math.Abs(aug[r][col]) > math.Abs(aug[pivot][col]) {
				pivot = r
			}
		}
		if math.Abs(aug[pivot][col]) < 1e-12 {
			return nil, 0, errors.New("matrix is singular")
		}
		if pivot != col {
			aug[pivot], aug[col] = aug[col], aug[pivot]
			det = -det
		}
		p := aug[col][col]
		det *= p
		for j := range aug[col] {
			aug[col][j] /= p
		}
		for r := 0; r < n; r++ {
			if r != col {
				f := aug[r][col]
				for j := range aug[r] {
					aug[r][j] -= f * aug[col][j]
				}
			}
		}
	}
	inv := New(n, n)
	for i := range inv {
		copy(inv[i], aug[i][n:])
	}
	return inv, det, nil
}

func (a Matrix) String() string {
	var b strings.Builder
	for _, row := range a {
		for _, v := range row {
			if math.Abs(v) < 1e-10 {
				v = 0
			}
			fmt.Fprintf(&b, "%9.4f", v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func main() {
	a := Matrix{{4, 7, 2}, {3, 6, 1}, {2, 5, 3}}
	inv, det, err := a.Inverse()
	if err != nil {
		panic(err)
	}
	fmt.Printf("A =\n%sdet(A) = %.4f\nA^-1 =\n%s", a, det, inv)
	prod, _ := a.Mul(inv)
	fmt.Printf("A * A^-1 =\n%s", prod)
	fmt.Println("close to identity:", fmt.Sprint(prod) == fmt.Sprint(Identity(3)))
	if _, _, err := (Matrix{{1, 2}, {2, 4}}).Inverse(); err != nil {
		fmt.Println("expected:", err)
	}
	if _, err := a.Mul(Matrix{{1, 2}}); err != nil {
		fmt.Println("expected:", err)
	}
}
