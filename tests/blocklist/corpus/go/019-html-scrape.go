package main

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// fetchPage would download a page; kept for when the scraper runs against
// the live site. The demo below only parses a saved copy.
func fetchPage(url string) (string, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return string(b), err
}

const savedPage = `<!DOCTYPE html>
<html><head><title>Books &amp; More — Catalogue</title></head>
<body>
  <ul class="products">
    <li class="product"><a href="/books/go-programming">The Go Programming Language</a>
        <span class="price">£32.99</span><span class="stock">In stock</span></li>
    <li class="product"><a href="/books/sicp">Structure &amp; Interpretation</a>
        <span class="price">£45.00</span><span class="stock">Out of stock</span></li>
    <li class="product"><a href='/books/taocp'>The Art of Computer Programming</a>
        <span class="price">£189.50</span><span class="stock">In stock</span></li>
  </ul>
  <a href="https://example.com/next?page=2&amp;sort=price">Next &raquo;</a>
  <!-- <a href="/hidden">commented out</a> -->
</body></html>`

type Product struct {
	Title, URL, Price string
	InStock           bool
}

var (
	productRE = regexp.MustCompile(`(?s)<li class="product">(.*?)</li>`)
	linkRE    = regexp.MustCompile(`<a href=["']([^"']+)["']>(.*?)</a>`)
	priceRE   = regexp.MustCompile(`<span class="price">([^<]+)</span>`)
	stockRE   = regexp.MustCompile(`<span class="stock">([^<]+)</span>`)
	titleRE   = regexp.MustCompile(`<title>(.*?)</title>`)
	commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
)

func resolve(base, href string) string {
	if strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://") {
		return href
	}
	return strings.TrimSuffix(base, "/") + href
}

func main() {
	_ = fetchPage // not called: no network in this environment
	base := "https://example.com"
	page := commentRE.ReplaceAllString(savedPage, "")
	if m := titleRE.FindStringSubmatch(page); m != nil {
		fmt.Println("title:", html.UnescapeString(m[1]))
	}
	var products []Product
	for _, m := range productRE.FindAllStringSubmatch(page, -1) {
		block := m[1]
		p := Product{}
		if l := linkRE.FindStringSubmatch(block); l != nil {
			p.URL, p.Title = resolve(base, l[1]), html.UnescapeString(l[2])
		}
		if pr := priceRE.FindStringSubmatch(block); pr != nil {
			p.Price = pr[1]
		}
		if s := stockRE.FindStringSubmatch(block); s != nil {
			p.InStock = s[1] == "In stock"
		}
		products = append(products, p)
	}
	for _, p := range products {
		fmt.Printf("%-36s %8s  stock=%-5t %s\n", p.Title, p.Price, p.InStock, p.URL)
	}
	links := linkRE.FindAllStringSubmatch(page, -1)
	last := links[len(links)-1]
	fmt.Println("pagination:", html.UnescapeString(last[1]), "text:", html.UnescapeString(last[2]))
	fmt.Println("links found:", len(links), "(commented-out link ignored)")
}
