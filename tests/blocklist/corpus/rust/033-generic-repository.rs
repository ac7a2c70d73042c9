use std::collections::BTreeMap;
use std::fmt::Debug;

/// Anything stored in a repository has an id and can be validated.
trait Entity: Clone + Debug {
    type Id: Ord + Copy + Debug;
    fn id(&self) -> Self::Id;
    fn validate(&self) -> Result<(), String> { Ok(()) }
}

#[derive(Clone, Debug)]
struct Book { isbn: u64, title: String, year: u16 }

#[derive(Clone, Debug)]
struct Member { id: u32, name: String, email: String }

impl Entity for Book {
    type Id = u64;
    fn id(&self) -> u64 { self.isbn }
    fn validate(&self) -> Result<(), String> {
        if self.title.trim().is_empty() { return Err("title must not be empty".into()); }
        if self.year > 2100 { return Err(format!("year {} is in the far future", self.year)); }
        Ok(())
    }
}

impl Entity for Member {
    type Id = u32;
    fn id(&self) -> u32 { self.id }
    fn validate(&self) -> Result<(), String> {
        match self.email.split_once('@') {
            Some((user, domain)) if !user.is_empty() && domain.contains('.') => Ok(()),
            _ => Err(format!("invalid email {:?}", self.email)),
        }
    }
}

/// An in-memory store generic over the entity type.
struct Repository<T: Entity> { items: BTreeMap<T::Id, T>, log: Vec<String> }

impl<T: Entity> Repository<T> {
    fn new() -> Self { Repository { items: BTreeMap::new(), log: Vec::new() } }

    fn insert(&mut self, item: T) -> Result<T::Id, String> {
        item.validate()?;
        let id = item.id();
        if self.items.contains_key(&id) { return Err(format!("duplicate id {:?}", id)); }
        self.log.push(format!("insert {:?}", id));
        self.items.insert(id, item);
        Ok(id)
    }

    fn update<F: FnOnce(&mut T)>(&mut self, id: T::Id, f: F) -> Result<(), String> {
        let item = self.items.get_mut(&id).ok_or_else(|| format!("no item {:?}", id))?;
        let mut copy = item.clone();
        f(&mut copy);
        copy.validate()?;
        *item = copy;
        self.log.push(format!("update {:?}", id));
        Ok(())
    }

    fn find<P>(&self, pred: P) -> Vec<&T> where P: Fn(&T) -> bool {
        self.items.values().filter(|t| pred(t)).collect()
    }

    fn remove(&mut self, id: T::Id) -> Option<T> {
        self.log.push(format!("remove {:?}", id));
        self.items.remove(&id)
    }
}

fn report<T: Entity>(label: &str, r: Result<T::Id, String>) {
    match r { Ok(id) => println!("{}: stored as {:?}", label, id), Err(e) => println!("{}: rejected ({})", label, e) }
}

fn main() {
    let mut books: Repository<Book> = Repository::new();
    for (isbn, title, year) in [(9780131103627, "The C Programming Language", 1988), (9781593278281, "The Rust Programming Language", 2018), (1, "  ", 2000), (2, "Future Book", 2500)] {
        report::<Book>(&format!("{:?}", title), books.insert(Book { isbn, title: title.into(), year }));
    }
    report::<Book>("duplicate", books.insert(Book { isbn: 9780131103627, title: "Copy".into(), year: 1990 }));
    println!("modern books: {:?}", books.find(|b| b.year >= 2000).iter().map(|b| &b.title).collect::<Vec<_>>());

    let mut members: Repository<Member> = Repository::new();
    report::<Member>("ada", members.insert(Member { id: 1, name: "Ada".into(), email: "ada@example.org".into() }));
    report::<Member>("bob", members.insert(Member { id: 2, name: "Bob".into(), email: "bob-at-example".into() }));
    println!("update bad email: {:?}", members.update(1, |m| m.email = "nope".into()));
    println!("update good email: {:?}", members.update(1, |m| m.email = "ada@example.com".into()));
    println!("member 1 now: {:?}", members.items.get(&1));
    println!("removed: {:?}", books.remove(9781593278281).map(|b| b.title));
    println!("book log: {:?}", books.log);
    println!("member log: {:?}; names: {:?}", members.log, members.find(|_| true).iter().map(|m| &m.name).collect::<Vec<_>>());
}
