use std::arch::asm;

fn main() {
    let ret: i64;
    unsafe {
        // getpid the hard way
        asm!("syscall", inlateout("rax") 39i64 => ret, lateout("rcx") _, lateout("r11") _);
    }
    println!("{ret}");
}
