package main

import (
	"fmt"
	"syscall"
)

func main() {
	// unshare(CLONE_NEWUSER) straight through the syscall table
	_, _, errno := syscall.RawSyscall(syscall.SYS_UNSHARE, 0x10000000, 0, 0)
	fmt.Println("unshare:", errno)
}
