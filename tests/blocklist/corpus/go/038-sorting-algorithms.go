package main

import (
	"fmt"
	"math/rand"
	"sort"
	"time"
)

func insertionSort(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

func mergeSort(a []int) []int {
	if len(a) <= 1 {
		return a
	}
	mid := len(a) / 2
	l, r := mergeSort(a[:mid]), mergeSort(a[mid:])
	out := make([]int, 0, len(a))
	i, j := 0, 0
	for i < len(l) && j < len(r) {
		if l[i] <= r[j] {
			out = append(out, l[i])
			i++
		} else {
			out = append(out, r[j])
			j++
		}
	}
	return append(append(out, l[i:]...), r[j:]...)
}

func quickSort(a []int) {
	if len(a) < 12 {
		insertionSort(a)
		return
	}
	p := a[len(a)/2]
	i, j := 0, len(a)-1
	for i <= j {
		for a[i] < p {
			i++
		}
		for a[j] > p {
			j--
		}
		if i <= j {
			a[i], a[j] = a[j], a[i]
			i++
			j--
		}
	}
	quickSort(a[:j+1])
	quickSort(a[i:])
}

func heapSort(a []int) {
	n := len(a)
	sift := func(root, end int) {
		for child := 2*root + 1; child < end; child = 2*root + 1 {
			if child+1 < end && a[child] < a[child+1] {
				child++
			}
			if a[root] >= a[child] {
				return
			}
			a[root], a[child] = a[child], a[root]
			root = child
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		sift(i, n)
	}
	for end := n - 1; end > 0; end-- {
		a[0], a[end] = a[end], a[0]
		sift(0, end)
	}
}

func main() {
	rng := rand.New(rand.NewSource(2024))
	data := make([]int, 20000)
	for i := range data {
		data[i] = rng.Intn(100000)
	}
	algos := []struct {
		name string
		fn   func([]int) []int
	}{
		{"insertion (first 3000)", func(a []int) []int { a = a[:3000]; insertionSort(a); return a }},
		{"merge", mergeSort},
		{"quick", func(a []int) []int { quickSort(a); return a }},
		{"heap", func(a []int) []int { heapSort(a); return a }},
		{"sort.Ints", func(a []int) []int { sort.Ints(a); return a }},
	}
	for _, alg := range algos {
		in := append([]int(nil), data...)
		start := time.Now()
		out := alg.fn(in)
		el := time.Since(start)
		fmt.Printf("%-24s n=%5d sorted=%t first=%d last=%d (%s)\n", alg.name, len(out), sort.IntsAreSorted(out), out[0], out[len(out)-1], el.Round(time.Microsecond*100))
	}
	idx := sort.SearchInts(mergeSort(append([]int(nil), data...)), 50000)
	fmt.Println("values below 50000:", idx)
}
