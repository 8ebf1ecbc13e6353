// loop-aarch64.S - a workload of exactly known length for counting checks:
// "loop N" runs N iterations of a 4-instruction loop with no C runtime, so
// it retires 4*N + 7*D + 13 user-mode instructions, D being the number of
// decimal digits in N (argument parsing, 7 per digit plus 4 for the end of
// the string; 5 before it, 1 before the loop, 3 to exit).
	.global	_start
	.text
_start:
	ldr	x1, [sp]		// argc
	mov	x0, #0			// N
	cmp	x1, #2
	b.lt	run
	ldr	x2, [sp, #16]		// argv[1]
parse:
	ldrb	w3, [x2], #1
	sub	w3, w3, #'0'
	cmp	w3, #9
	b.hi	run			// not a digit (the NUL): done
	mov	x4, #10
	madd	x0, x0, x4, x3
	b	parse
run:
	cbz	x0, done
loop:
	add	x5, x5, #1
	add	x6, x6, #1
	subs	x0, x0, #1
	b.ne	loop
done:
	mov	x0, #0
	mov	x8, #93			// exit
	svc	#0
