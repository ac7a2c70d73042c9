#!/usr/bin/env bash
# Extract product data from HTML. The network fetcher exists for real use, but this
# run parses an embedded static page instead, so nothing is downloaded.
set -euo pipefail

BASE_URL="https://example.com/shop"

fetch_page() {
    # Not called in this offline demo.
    local url=$1
    curl --silent --fail --max-time 10 -A "price-watch/1.0" "$url"
}

static_page() {
    cat <<'HTML'
<!DOCTYPE html>
<html><head><title>Example Shop &mdash; Deals</title></head>
<body>
  <ul class="products">
    <li class="product" data-sku="A-100"><a href="/p/a100">Kettle</a> <span class="price">$24.99</span></li>
    <li class="product" data-sku="B-220"><a href="/p/b220">Toaster "Deluxe"</a> <span class="price">$39.50</span></li>
    <li class="product sold-out" data-sku="C-310"><a href="/p/c310">Blender</a> <span class="price">$89.00</span></li>
    <li class="product" data-sku="D-007"><a href="https://example.org/partner/d007">Coffee grinder</a> <span class="price">$15.25</span></li>
  </ul>
  <!-- <script>alert("ignored")</script> -->
</body></html>
HTML
}

html=$(static_page)          # offline: would be html=$(fetch_page "$BASE_URL/deals")

title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' <<<"$html")
echo "Page title: ${title//&mdash;/-}"
echo

total_cents=0 count=0
printf '%-6s %-18s %9s  %s\n' SKU NAME PRICE LINK
while IFS= read -r item; do
    [[ $item =~ data-sku=\"([^\"]+)\" ]] && sku=${BASH_REMATCH[1]}
    [[ $item =~ href=\"([^\"]+)\"\>([^<]+)\</a\> ]] && { href=${BASH_REMATCH[1]}; name=${BASH_REMATCH[2]}; }
    [[ $item =~ \$([0-9]+)\.([0-9]{2}) ]] && cents=$(( 10#${BASH_REMATCH[1]} * 100 + 10#${BASH_REMATCH[2]} ))
    [[ $href == /* ]] && href="${BASE_URL%/shop}$href"     # make relative links absolute
    status=""
    [[ $item == *sold-out* ]] && status=" (sold out)"
    printf '%-6s %-18s %9s  %s%s\n' "$sku" "$name" "$(printf '$%d.%02d' $(( cents / 100 )) $(( cents % 100 )))" "$href" "$status"
    if [[ -z $status ]]; then (( total_cents += cents, ++count )); fi
done < <(grep -o '<li class="product[^"]*"[^>]*>.*</li>' <<<"$html")

echo
echo "In-stock items: $count, average price \$$(( total_cents / count / 100 )).$(printf '%02d' $(( total_cents / count % 100 )))"
echo "Domains linked: $(grep -oE 'https?://[^/"]+' <<<"$html" | sort -u | tr '\n' ' ')"
