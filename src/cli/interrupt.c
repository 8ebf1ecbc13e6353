/* interrupt.c - SIGINT/SIGTERM end a collection cleanly: what was collected is still reported */
#include "cli/interrupt.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* The state a signal handler may touch: the last signal and how many came. */
static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t n_signals;

static void on_signal(int sig)
{
	got_signal = sig;
	if (n_signals < 1000)
		n_signals++;
}

void cli_catch_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cli_interrupted(void)
{
	return (int)got_signal;
}

int cli_interrupt_count(void)
{
	return (int)n_signals;
}

bool cli_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (!got_signal && nanosleep(&ts, &ts) && errno == EINTR)
		;
	return got_signal != 0;
}
