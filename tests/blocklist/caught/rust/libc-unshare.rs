extern crate libc;

fn main() {
    let rc = unsafe { libc::unshare(libc::CLONE_NEWUSER) };
    println!("{rc}");
}
