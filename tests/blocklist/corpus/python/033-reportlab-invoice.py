from datetime import date
from decimal import Decimal

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

LINES = [
    ("Consulting — architecture review", 12, Decimal("95.00")),
    ("Implementation of export module", 30, Decimal("85.00")),
    ("Support & maintenance (April)", 1, Decimal("450.00")),
    ("Travel expenses", 1, Decimal("132.40")),
]
VAT = Decimal("0.21")
OUT = "/work/invoice_2024_017.pdf"


def eur(x):
    return f"€ {x:,.2f}"


def build():
    styles = getSampleStyleSheet()
    doc = SimpleDocTemplate(OUT, pagesize=A4, leftMargin=20 * mm, rightMargin=20 * mm,
                            title="Invoice 2024-017", author="Example Consulting")
    story = [
        Paragraph("Example Consulting B.V.", styles["Title"]),
        Paragraph("Invoice <b>2024-017</b> &middot; " + date(2024, 5, 2).strftime("%d %B %Y"), styles["Normal"]),
        Paragraph("Bill to: Widgets Ltd., 1 Example Street, Springfield", styles["Normal"]),
        Spacer(1, 8 * mm),
    ]
    data = [["Description", "Qty", "Unit price", "Amount"]]
    subtotal = Decimal(0)
    for desc, qty, price in LINES:
        amount = qty * price
        subtotal += amount
        data.append([desc, str(qty), eur(price), eur(amount)])
    vat = (subtotal * VAT).quantize(Decimal("0.01"))
    data += [["", "", "Subtotal", eur(subtotal)],
             ["", "", f"VAT {VAT:.0%}", eur(vat)],
             ["", "", "Total due", eur(subtotal + vat)]]

    table = Table(data, colWidths=[85 * mm, 15 * mm, 30 * mm, 35 * mm])
    table.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#1f3b6e")),
        ("TEXTCOLOR", (0, 0), (-1, 0), colors.white),
        ("ALIGN", (1, 1), (-1, -1), "RIGHT"),
        ("GRID", (0, 0), (-1, len(LINES)), 0.4, colors.grey),
        ("FONTNAME", (2, -1), (-1, -1), "Helvetica-Bold"),
        ("LINEABOVE", (2, -1), (-1, -1), 1, colors.black),
    ]))
    story += [table, Spacer(1, 10 * mm),
              Paragraph("Payment within 30 days. Questions? Write to billing@example.com.", styles["Italic"])]
    doc.build(story)
    return subtotal + vat


if __name__ == "__main__":
    total = build()
    with open(OUT, "rb") as fh:
        head = fh.read(8)
    print(f"wrote {OUT} (starts with {head!r}), total due {eur(total)}")
    assert head.startswith(b"%PDF")
