import sqlite3
from contextlib import closing

SCHEMA = """
CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, born INTEGER);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    year INTEGER,
    pages INTEGER CHECK (pages > 0)
);
CREATE TABLE loans (book_id INTEGER REFERENCES books(id), member TEXT, out_date TEXT, back_date TEXT);
CREATE INDEX idx_books_author ON books(author_id);
"""

AUTHORS = [("Ursula K. Le Guin", 1929), ("Terry Pratchett", 1948), ("Octavia E. Butler", 1947)]
BOOKS = [
    ("A Wizard of Earthsea", "Ursula K. Le Guin", 1968, 183),
    ("The Dispossessed", "Ursula K. Le Guin", 1974, 387),
    ("Guards! Guards!", "Terry Pratchett", 1989, 416),
    ("Small Gods", "Terry Pratchett", 1992, 400),
    ("Night Watch", "Terry Pratchett", 2002, 480),
    ("Kindred", "Octavia E. Butler", 1979, 264),
]
LOANS = [(1, "ann", "2024-03-01", "2024-03-15"), (3, "bob", "2024-03-02", None),
         (3, "cy", "2024-02-01", "2024-02-20"), (6, "ann", "2024-03-10", None)]


def main():
    with closing(sqlite3.connect(":memory:")) as db:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys = ON")
        db.executescript(SCHEMA)
        with db:
            db.executemany("INSERT INTO authors(name, born) VALUES (?, ?)", AUTHORS)
            for title, author, year, pages in BOOKS:
                db.execute("""INSERT INTO books(title, author_id, year, pages)
                              SELECT ?, id, ?, ? FROM authors WHERE name = ?""", (title, year, pages, author))
            db.executemany("INSERT INTO loans VALUES (?, ?, ?, ?)", LOANS)

        print("books per author:")
        for row in db.execute("""
                SELECT a.name, COUNT(b.id) AS n, SUM(b.pages) AS pages, MIN(b.year) AS first
                FROM authors a LEFT JOIN books b ON b.author_id = a.id
                GROUP BY a.id ORDER BY n DESC, a.name"""):
            print(f"  {row['name']:<20} {row['n']} books, {row['pages']} pages, first in {row['first']}")

        print("\ncurrently on loan:")
        for row in db.execute("""SELECT b.title, l.member, julianday('2024-03-20') - julianday(l.out_date) AS days
                                 FROM loans l JOIN books b ON b.id = l.book_id WHERE l.back_date IS NULL"""):
            print(f"  {row['title']!r} with {row['member']} for {row['days']:.0f} days")

        # Parameters keep quotes in user input harmless.
        search = "Guards'; DROP TABLE books; --"
        hits = db.execute("SELECT COUNT(*) FROM books WHERE title LIKE ?", (f"%{search}%",)).fetchone()[0]
        print(f"\nsearch for {search!r}: {hits} hits; books table still has",
              db.execute("SELECT COUNT(*) FROM books").fetchone()[0], "rows")

        try:
            with db:
                db.execute("INSERT INTO books(title, author_id, pages) VALUES ('Ghost', 99, 10)")
        except sqlite3.IntegrityError as exc:
            print("integrity error:", exc)
        try:
            with db:
                db.execute("INSERT INTO books(title, author_id, pages) VALUES ('Empty', 1, 0)")
        except sqlite3.IntegrityError as exc:
            print("integrity error:", exc)

        with closing(sqlite3.connect("/work/library.db")) as disk:
            db.backup(disk)
        print("backed up to /work/library.db")


if __name__ == "__main__":
    main()
