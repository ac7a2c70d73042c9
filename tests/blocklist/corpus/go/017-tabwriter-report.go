package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
)

type Employee struct {
	Name   string
	Dept   string
	Salary float64
	Hours  []float64
}

func (e Employee) TotalHours() float64 {
	t := 0.0
	for _, h := range e.Hours {
		t += h
	}
	return t
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func withCommas(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

func main() {
	staff := []Employee{
		{"Ada Lovelace", "R&D", 98000, []float64{8, 7.5, 9, 8, 6}},
		{"Grace Hopper", "Platform", 105500.5, []float64{9, 9, 8.5, 10, 7}},
		{"Linus", "Kernel", 87000, []float64{12, 11, 10}},
		{"Zoë Ångström", "Design", 76250, []float64{7, 7, 7, 7, 7}},
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(w, "Name\tDept\tSalary\tHours\tAvg/day\t")
	for _, e := range staff {
		avg := e.TotalHours() / float64(len(e.Hours))
		fmt.Fprintf(w, "%s\t%s\t$%s\t%.1f\t%.2f\t\n", e.Name, e.Dept, withCommas(int(e.Salary)), e.TotalHours(), avg)
	}
	w.Flush()

	fmt.Println()
	fmt.Printf("|%-10s|%10s|%-10.3s|\n", "left", "right", "truncated")
	fmt.Printf("|%+d|%05d|%x|%X|%o|%b|\n", 42, 42, 255, 255, 8, 5)
	fmt.Printf("|%8.3f|%-8.2e|%g|\n", 3.14159, 123456.789, 1e-7)
	fmt.Printf("%q %v %+v %#v\n", "quote\"d", staff[3].Hours[:2], struct{ A int }{1}, []string{"x"})
	fmt.Printf("%T %T %T\n", staff[0], 3+4i, map[string][]int{})
	fmt.Printf("%c%c%c %U\n", 'G', 'o', '!', '⌘')
	for _, n := range []int64{512, 2048, 5 << 20, 3 << 30, 1234567890123} {
		fmt.Printf("%15s -> %s\n", withCommas(int(n)), humanBytes(n))
	}
	fmt.Println(withCommas(-9876543))
}
