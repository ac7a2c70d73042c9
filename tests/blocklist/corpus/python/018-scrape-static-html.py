"""Extract product listings from a shop page.

fetch_page() is what a real run would use; here we parse a saved copy instead.
"""
from html.parser import HTMLParser
import urllib.request

SAVED_PAGE = """
<html><head><title>Shop &amp; Co — Laptops</title></head>
<body>
  <div class="product" data-sku="LP-100">
    <h2 class="name">UltraBook 13"</h2>
    <span class="price">€ 1.099,00</span>
    <a href="/p/lp-100">details</a>
  </div>
  <div class="product" data-sku="LP-200">
    <h2 class="name">WorkStation 15</h2>
    <span class="price">€ 1.849,50</span>
    <a href="/p/lp-200">details</a>
  </div>
  <div class="product sold-out" data-sku="LP-300">
    <h2 class="name">Budget 14</h2>
    <span class="price">€ 499,99</span>
    <a href="https://example.com/p/lp-300">details</a>
  </div>
  <script>var tracking = "<div class='product'>fake</div>";</script>
</body></html>
"""


def fetch_page(url, timeout=10):
    req = urllib.request.Request(url, headers={"User-Agent": "price-watch/0.1"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.read().decode("utf-8", errors="replace")


class ProductParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.products, self.current, self.field, self.title, self.in_title = [], None, None, "", False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "title":
            self.in_title = True
        elif tag == "div" and "product" in classes:
            self.current = {"sku": attrs.get("data-sku"), "available": "sold-out" not in classes}
        elif self.current is not None:
            if "name" in classes or "price" in classes:
                self.field = classes[0]
            elif tag == "a":
                self.current["link"] = attrs.get("href")

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "div" and self.current:
            self.products.append(self.current)
            self.current = None
        self.field = None

    def handle_data(self, data):
        if self.in_title:
            self.title += data
        elif self.current is not None and self.field:
            self.current[self.field] = data.strip()


def parse_price(text):
    digits = text.replace("€", "").replace(".", "").replace(",", ".").strip()
    return float(digits)


def main():
    parser = ProductParser()
    parser.feed(SAVED_PAGE)
    print("page title:", parser.title)
    for p in parser.products:
        flag = "" if p["available"] else " (sold out)"
        print(f"{p['sku']}: {p['name']:<16} {parse_price(p['price']):>9.2f} EUR  {p['link']}{flag}")
    available = [p for p in parser.products if p["available"]]
    cheapest = min(available, key=lambda p: parse_price(p["price"]))
    print("cheapest available:", cheapest["name"])
    assert len(parser.products) == 3


if __name__ == "__main__":
    main()
