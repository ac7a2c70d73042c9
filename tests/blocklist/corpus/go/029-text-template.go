package main

import (
	"fmt"
	"os"
	"strings"
	"text/template"
	"time"
)

type Item struct {
	SKU   string
	Name  string
	Qty   int
	Price float64
}

type Invoice struct {
	Number   int
	Customer string
	Date     time.Time
	Items    []Item
	Notes    []string
	TaxRate  float64
}

func (inv Invoice) Subtotal() float64 {
	s := 0.0
	for _, it := range inv.Items {
		s += float64(it.Qty) * it.Price
	}
	return s
}

const invoiceTmpl = `{{/* Plain-text invoice; trims whitespace with {{- and -}} */ -}}
INVOICE #{{printf "%05d" .Number}}  —  {{.Date.Format "2 January 2006"}}
Bill to: {{.Customer | upper}}
{{line 44}}
{{range $i, $it := .Items -}}
{{inc $i}}. {{printf "%-18s" $it.Name}} {{$it.Qty}} x {{money $it.Price}} = {{money (mul $it.Qty $it.Price)}}
{{end -}}
{{line 44}}
Subtotal: {{money .Subtotal}}
Tax ({{printf "%.0f" (pct .TaxRate)}}%): {{money (mulf .Subtotal .TaxRate)}}
Total:    {{money (addf .Subtotal (mulf .Subtotal .TaxRate))}}
{{with .Notes}}
Notes:
{{- range .}}
  * {{.}}
{{- end}}
{{else}}
(no notes)
{{end -}}
`

func main() {
	funcs := template.FuncMap{
		"upper": strings.ToUpper,
		"line":  func(n int) string { return strings.Repeat("-", n) },
		"inc":   func(i int) int { return i + 1 },
		"money": func(v float64) string { return fmt.Sprintf("€%.2f", v) },
		"mul":   func(q int, p float64) float64 { return float64(q) * p },
		"mulf":  func(a, b float64) float64 { return a * b },
		"addf":  func(a, b float64) float64 { return a + b },
		"pct":   func(r float64) float64 { return r * 100 },
	}
	t := template.Must(template.New("invoice").Funcs(funcs).Parse(invoiceTmpl))

	inv := Invoice{
		Number:   42,
		Customer: "Müller & Söhne GmbH",
		Date:     time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC),
		TaxRate:  0.21,
		Items: []Item{
			{"A-1", "USB-C cable", 3, 9.95},
			{"B-7", "Mechanical keyboard", 1, 129.00},
			{"C-2", `27" monitor`, 2, 289.50},
		},
		Notes: []string{"Payment due within 30 days", `Reference "INV-42" on transfer`},
	}
	if err := t.Execute(os.Stdout, inv); err != nil {
		fmt.Println("template error:", err)
	}

	inv.Notes = nil
	inv.Items = inv.Items[:1]
	fmt.Println("=== second render ===")
	if err := t.Execute(os.Stdout, inv); err != nil {
		fmt.Println("template error:", err)
	}

	// Errors surface at execution time for bad field names.
	bad := template.Must(template.New("bad").Parse("{{.Missing}}\n"))
	if err := bad.Execute(os.Stdout, inv); err != nil {
		fmt.Println("expected error:", err != nil)
	}
}
