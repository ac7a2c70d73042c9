from datetime import date, timedelta

from openpyxl import Workbook, load_workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

PEOPLE = {"Ana": [8, 7.5, 8, 9, 6], "Bram": [6, 6, 8, 8, 8], "Chen": [9, 9, 9, 4, 0], "Dita": [7, 8, 7, 8, 7]}
START = date(2024, 4, 15)
PATH = "/work/timesheet.xlsx"


def build():
    wb = Workbook()
    ws = wb.active
    ws.title = "Week 16"
    header = ["Name"] + [(START + timedelta(days=i)).strftime("%a %d/%m") for i in range(5)] + ["Total", "Overtime"]
    ws.append(header)
    for cell in ws[1]:
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor="305496")
        cell.alignment = Alignment(horizontal="center")

    for row, (name, hours) in enumerate(PEOPLE.items(), start=2):
        ws.append([name, *hours])
        ws.cell(row=row, column=7, value=f"=SUM(B{row}:F{row})")
        ws.cell(row=row, column=8, value=f"=MAX(0,G{row}-38)")
    last = len(PEOPLE) + 1
    ws.append(["Average"] + [f"=AVERAGE({get_column_letter(c)}2:{get_column_letter(c)}{last})" for c in range(2, 8)])
    for col in range(1, 9):
        ws.column_dimensions[get_column_letter(col)].width = 12
    ws.freeze_panes = "B2"

    chart = BarChart()
    chart.title = "Hours per person"
    data = Reference(ws, min_col=2, max_col=6, min_row=1, max_row=last)
    cats = Reference(ws, min_col=1, min_row=2, max_row=last)
    chart.add_data(data, titles_from_data=True)
    chart.set_categories(cats)
    ws.add_chart(chart, "J2")

    notes = wb.create_sheet("Notes")
    notes["A1"] = "Chen was on leave on Friday."
    notes["A2"] = "Overtime = hours above 38 per week."
    wb.save(PATH)


def read_back():
    wb = load_workbook(PATH)
    ws = wb["Week 16"]
    print("sheets:", wb.sheetnames)
    for row in ws.iter_rows(min_row=2, max_row=len(PEOPLE) + 1, values_only=True):
        name, *hours = row[:6]
        total = sum(hours)
        flag = "  <- overtime" if total > 38 else ""
        print(f"{name:<5} {hours} total={total:g} formula={row[6]}{flag}")
    print("notes:", [c.value for c in wb["Notes"]["A"]])


if __name__ == "__main__":
    build()
    print("wrote", PATH)
    read_back()
