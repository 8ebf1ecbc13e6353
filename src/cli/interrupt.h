/* interrupt.h - SIGINT/SIGTERM end a collection cleanly: what was collected is still reported */
#ifndef VP_INTERRUPT_H
#define VP_INTERRUPT_H

#include <stdbool.h>
#include <stdint.h>

/* Install the handlers (idempotent). */
void cli_catch_interrupts(void);
/* The signal that arrived (SIGINT, SIGTERM), 0 when none. */
int cli_interrupted(void);
/* How many of them arrived so far (a second Ctrl-C can end what the first let finish). */
int cli_interrupt_count(void);
/* Sleep ns nanoseconds; returns early (true) when interrupted. */
bool cli_sleep_ns(uint64_t ns);

#endif
