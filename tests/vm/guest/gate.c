/* gate.c - a workload of known length that waits at a gate, so a counter
 * can attach to its thread before it starts: "gate FIFO N" opens FIFO
 * (blocking in the kernel until a writer opens it), reads one byte, then
 * runs N iterations of a 4-instruction loop and exits with a raw syscall.
 * After the gate opens it retires 4*N plus a few dozen user instructions. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, a = 0, b = 0;
	char c;
	int fd;

	if (argc < 3)
		return 2;
	n = strtoul(argv[2], NULL, 10);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return 1;
	if (n) {
#if defined(__aarch64__)
		__asm__ volatile("1:\n\tadd %0, %0, #1\n\tadd %1, %1, #1\n\tsubs %2, %2, #1\n\tb.ne 1b"
				 : "+r"(a), "+r"(b), "+r"(n)
				 :
				 : "cc");
#else
		__asm__ volatile("1:\n\tinc %0\n\tinc %1\n\tdec %2\n\tjnz 1b"
				 : "+r"(a), "+r"(b), "+r"(n)
				 :
				 : "cc");
#endif
	}
	syscall(SYS_exit_group, 0);
	return 0;
}
