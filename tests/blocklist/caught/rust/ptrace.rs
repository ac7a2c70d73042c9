fn main() {
    let rc = unsafe { libc::ptrace(libc::PTRACE_ATTACH, 1, 0, 0) };
    println!("{rc}");
}
