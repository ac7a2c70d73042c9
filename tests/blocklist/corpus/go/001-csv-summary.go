package main

import (
	"encoding/csv"
	"fmt"
	"log"
	"math"
	"sort"
	"strconv"
	"strings"
)

// salesData is a small export from the shop's point-of-sale system.
const salesData = `region,product,units,price
north,widget,12,2.50
north,gadget,3,19.99
south,widget,40,2.45
south,gizmo,7,8.00
east,gadget,5,21.00
east,widget,18,2.55
west,gizmo,11,7.75
west,gadget,2,20.50
north,gizmo,9,8.10
`

type stats struct {
	count   int
	units   int
	revenue float64
}

func main() {
	r := csv.NewReader(strings.NewReader(salesData))
	records, err := r.ReadAll()
	if err != nil {
		log.Fatalf("reading csv: %v", err)
	}

	byRegion := map[string]*stats{}
	var prices []float64
	for i, rec := range records {
		if i == 0 {
			continue // header
		}
		units, err := strconv.Atoi(rec[2])
		if err != nil {
			log.Fatalf("row %d: bad units %q", i, rec[2])
		}
		price, err := strconv.ParseFloat(rec[3], 64)
		if err != nil {
			log.Fatalf("row %d: bad price %q", i, rec[3])
		}
		s, ok := byRegion[rec[0]]
		if !ok {
			s = &stats{}
			byRegion[rec[0]] = s
		}
		s.count++
		s.units += units
		s.revenue += float64(units) * price
		prices = append(prices, price)
	}

	regions := make([]string, 0, len(byRegion))
	for k := range byRegion {
		regions = append(regions, k)
	}
	sort.Strings(regions)

	fmt.Printf("%-8s %5s %6s %10s\n", "region", "rows", "units", "revenue")
	total := 0.0
	for _, reg := range regions {
		s := byRegion[reg]
		fmt.Printf("%-8s %5d %6d %10.2f\n", reg, s.count, s.units, s.revenue)
		total += s.revenue
	}
	fmt.Printf("%-8s %5s %6s %10.2f\n", "total", "", "", total)

	mean, sd := meanStd(prices)
	sort.Float64s(prices)
	fmt.Printf("\nprice mean=%.3f sd=%.3f median=%.2f min=%.2f max=%.2f\n",
		mean, sd, median(prices), prices[0], prices[len(prices)-1])
}

func meanStd(xs []float64) (float64, float64) {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	ss := 0.0
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
